#include "loaders/onnx_newer_inference.hpp"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "model/model.hpp"

namespace condlint::newer_inference {

namespace {

using Shape = onnx::TensorShapeProto;
using Dim = onnx::TensorShapeProto_Dimension;

constexpr size_t kMaxValues = 1 << 16;  // constant axes, pads, shapes read (a longer one is left unknown)

// A node contradicts its definition: what infer() reports.
struct Fail {
  std::string what;
};
template <class... A>
[[noreturn]] void fail(const A&... a) {
  std::string s;
  ((s +=
    [](const auto& x) {
      if constexpr (std::is_arithmetic_v<std::decay_t<decltype(x)>>) return std::to_string(x);
      else return std::string(x);
    }(a)),
   ...);
  throw Fail{std::move(s)};
}

// The integers (INT64) or floats (FLOAT) of a constant tensor, from its typed field or its raw bytes. False when the
// tensor is of another type, stored elsewhere, or its data is not one value per element.
template <class T>
bool values_of(const onnx::TensorProto* t, int data_type, std::vector<T>& out) {
  if (!t || t->data_type() != data_type || t->data_location() == onnx::TensorProto::EXTERNAL) return false;
  uint64_t count = 1;
  for (int64_t d : t->dims()) {
    if (d < 0 || (d > 0 && count > kMaxValues / static_cast<uint64_t>(d) + 1)) return false;
    count *= static_cast<uint64_t>(d);
  }
  if (count > kMaxValues) return false;
  out.clear();
  if (!t->raw_data().empty()) {
    if (t->raw_data().size() != count * sizeof(T)) return false;
    out.resize(count);
    std::memcpy(out.data(), t->raw_data().data(), t->raw_data().size());  // little-endian, as onnx stores it
    return true;
  }
  if constexpr (std::is_same_v<T, int64_t>) out.assign(t->int64_data().begin(), t->int64_data().end());
  else out.assign(t->float_data().begin(), t->float_data().end());
  return out.size() == count;
}

struct Ctx {
  const onnx::NodeProto& np;
  const std::vector<Input>& in;
  std::vector<onnx::TypeProto>& out;

  bool present(int i) const { return i < static_cast<int>(in.size()) && in[static_cast<size_t>(i)].present; }
  const onnx::TypeProto* type(int i) const { return present(i) ? in[static_cast<size_t>(i)].type : nullptr; }
  const onnx::TensorProto* data(int i) const { return present(i) ? in[static_cast<size_t>(i)].data : nullptr; }
  const Shape* shape(int i) const {
    const onnx::TypeProto* t = type(i);
    return t && t->has_tensor_type() && t->tensor_type().has_shape() ? &t->tensor_type().shape() : nullptr;
  }
  int elem(int i) const {
    const onnx::TypeProto* t = type(i);
    return t && t->has_tensor_type() ? t->tensor_type().elem_type() : 0;
  }
  bool ints(int i, std::vector<int64_t>& v) const { return values_of(data(i), onnx::TensorProto::INT64, v); }
  bool has_out(int k) const { return k < static_cast<int>(out.size()) && !np.output(k).empty(); }
  // Output k's shape, emptied (its element type as the facts or the inference set it).
  Shape* set_shape(int k) {
    auto* s = out[static_cast<size_t>(k)].mutable_tensor_type()->mutable_shape();
    s->Clear();
    return s;
  }
  void set_elem(int k, int e) {
    if (e > 0) out[static_cast<size_t>(k)].mutable_tensor_type()->set_elem_type(e);
  }
  // Output k takes input i's element type where the facts left it open.
  void elem_from(int i, int k) {
    if (out[static_cast<size_t>(k)].tensor_type().elem_type() == 0) set_elem(k, elem(i));
  }
  void copy_shape(int i, int k) {
    if (const Shape* s = shape(i); s && has_out(k)) *set_shape(k) = *s;
  }
  const onnx::AttributeProto* attr(std::string_view name) const {
    for (const auto& a : np.attribute())
      if (a.name() == name) return &a;
    return nullptr;
  }
  int64_t attr_i(std::string_view name, int64_t dflt) const {
    const auto* a = attr(name);
    return a ? a->i() : dflt;
  }
};

void add_value(Shape* s, int64_t v) { s->add_dim()->set_dim_value(v); }

// Normalizes axes against a rank, each in [-rank, rank).
void normalize_axes(std::vector<int64_t>& axes, int64_t rank, bool unique) {
  std::vector<char> seen(static_cast<size_t>(rank), 0);
  for (int64_t& a : axes) {
    if (a < -rank || a >= rank) fail("axis ", a, " is out of the range [", -rank, ", ", rank, ")");
    if (a < 0) a += rank;
    if (unique && seen[static_cast<size_t>(a)]++) fail("axis ", a, " is given more than once");
  }
}

using Fn = void (*)(Ctx&);

// Output 0 has input 0's shape (element-wise unary operators and the normalizations).
void same_shape(Ctx& c) {
  c.elem_from(0, 0);
  c.copy_shape(0, 0);
}

// Identity: any type, passed through whole.
void identity(Ctx& c) {
  if (const onnx::TypeProto* t = c.type(0); t && c.has_out(0)) c.out[0] = *t;
}

// Reduce*-18, ReduceMax/Min-20: axes as an optional input; keepdims; noop_with_empty_axes.
void reduce(Ctx& c) {
  c.elem_from(0, 0);
  const Shape* s = c.shape(0);
  if (!s) return;
  const int64_t rank = s->dim_size();
  std::vector<int64_t> axes;
  if (c.present(1) && !c.ints(1, axes)) return;  // axes not a constant: nothing known of the shape
  if (axes.empty() && c.attr_i("noop_with_empty_axes", 0) != 0) return c.copy_shape(0, 0);
  normalize_axes(axes, rank, false);
  const bool keep = c.attr_i("keepdims", 1) != 0;
  Shape* o = c.set_shape(0);
  for (int64_t i = 0; i < rank; ++i) {
    const bool reduced = axes.empty() || std::find(axes.begin(), axes.end(), i) != axes.end();
    if (!reduced) *o->add_dim() = s->dim(static_cast<int>(i));
    else if (keep) add_value(o, 1);
  }
}

// Split-18: sizes from the `split` input or `num_outputs` equal chunks (the last one smaller).
void split(Ctx& c) {
  const int n_out = static_cast<int>(c.out.size());
  for (int k = 0; k < n_out; ++k) c.elem_from(0, k);
  const Shape* s = c.shape(0);
  if (!s) return;
  const int64_t rank = s->dim_size();
  int64_t axis = c.attr_i("axis", 0);
  if (axis < -rank || axis >= rank) fail("attribute 'axis' is ", axis, " but the input's rank is ", rank);
  if (axis < 0) axis += rank;
  auto with = [&](int k, const Dim* d) {
    if (!c.has_out(k)) return;
    Shape* o = c.set_shape(k);
    *o = *s;
    o->mutable_dim(static_cast<int>(axis))->Clear();
    if (d) *o->mutable_dim(static_cast<int>(axis)) = *d;
  };
  const Dim& whole = s->dim(static_cast<int>(axis));
  if (!whole.has_dim_value()) {
    for (int k = 0; k < n_out; ++k) with(k, nullptr);
    return;
  }
  const int64_t total = whole.dim_value();
  std::vector<int64_t> sizes;
  const auto* num = c.attr("num_outputs");
  if (c.present(1)) {
    if (num) fail("both the 'split' input and the 'num_outputs' attribute are given");
    if (!c.ints(1, sizes)) return;
    if (static_cast<int>(sizes.size()) != n_out) fail("'split' gives ", sizes.size(), " sizes for ", n_out, " outputs");
    int64_t sum = 0;
    for (int64_t v : sizes) sum += v;
    if (sum != total) fail("the sizes in 'split' add up to ", sum, " but the input's dimension ", axis, " is ", total);
  } else {
    if (!num) fail("neither the 'split' input nor the 'num_outputs' attribute is given");
    const int64_t parts = num->i();
    if (parts < 1) fail("attribute 'num_outputs' is ", parts, ", less than 1");
    const int64_t chunk = total / parts + (total % parts != 0);
    sizes.assign(static_cast<size_t>(std::min<int64_t>(parts, n_out + 1)), chunk);
    if (static_cast<int64_t>(sizes.size()) == parts) sizes.back() = total - chunk * (parts - 1);
  }
  for (int k = 0; k < n_out; ++k) {
    Dim d;
    if (k < static_cast<int>(sizes.size()) && sizes[static_cast<size_t>(k)] >= 0)
      d.set_dim_value(sizes[static_cast<size_t>(k)]);
    with(k, &d);
  }
}

// Pad-18 and later: pads (and optionally the axes they apply to) as inputs.
void pad(Ctx& c) {
  c.elem_from(0, 0);
  const Shape* s = c.shape(0);
  if (!s) return;
  const int64_t rank = s->dim_size();
  std::vector<int64_t> axes;
  if (c.present(3)) {
    if (!c.ints(3, axes)) return;
    normalize_axes(axes, rank, true);
  } else {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  Shape* o = c.set_shape(0);
  for (int64_t i = 0; i < rank; ++i) o->add_dim();  // the rank is known from here on
  std::vector<int64_t> pads;
  if (!c.ints(1, pads)) return;
  if (c.data(1)->dims_size() != 1) fail("'pads' must be a 1-D tensor of 2 * (number of axes) values");
  const size_t n = axes.size();
  if (pads.size() != 2 * n) fail("'pads' has ", pads.size(), " values where ", n, " axes take ", 2 * n);
  for (int64_t i = 0; i < rank; ++i)
    if (s->dim(static_cast<int>(i)).has_dim_value())
      o->mutable_dim(static_cast<int>(i))->set_dim_value(s->dim(static_cast<int>(i)).dim_value());
  for (size_t k = 0; k < n; ++k) {
    const Dim& d = s->dim(static_cast<int>(axes[k]));
    Dim* od = o->mutable_dim(static_cast<int>(axes[k]));
    od->Clear();
    const int64_t grow = pads[k] + pads[k + n];
    if (d.has_dim_value()) {
      if (d.dim_value() + grow >= 0) od->set_dim_value(d.dim_value() + grow);
    } else if (grow == 0) {
      *od = d;
    }
  }
}

// Resize-18/19: scales or sizes (with an axes attribute and the aspect-ratio policy of sizes).
void resize(Ctx& c) {
  c.elem_from(0, 0);
  const Shape* s = c.shape(0);
  if (!s) return;
  const int64_t rank = s->dim_size();
  // A constant of no elements counts as absent, as in onnx.
  auto given = [&](int i) {
    if (!c.present(i)) return false;
    const onnx::TensorProto* t = c.data(i);
    if (!t) return true;
    int64_t count = 1;
    for (int64_t d : t->dims()) count *= d;
    return count != 0;
  };
  const bool has_scales = given(2), has_sizes = given(3);
  if (has_scales == has_sizes) fail("exactly one of 'scales' and 'sizes' must be given");
  std::vector<int64_t> axes;
  if (const auto* a = c.attr("axes")) {
    axes.assign(a->ints().begin(), a->ints().end());
    normalize_axes(axes, rank, true);
  } else {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  Shape* o = c.set_shape(0);
  *o = *s;
  for (int64_t a : axes) o->mutable_dim(static_cast<int>(a))->Clear();
  const size_t n = axes.size();
  if (has_scales) {
    std::vector<float> scales;
    if (!values_of(c.data(2), onnx::TensorProto::FLOAT, scales)) return;
    if (scales.size() != n) fail("'scales' has ", scales.size(), " values for ", n, " axes");
    for (size_t k = 0; k < n; ++k) {
      const Dim& d = s->dim(static_cast<int>(axes[k]));
      const float v = std::floor(static_cast<float>(d.dim_value()) * scales[k]);
      if (d.has_dim_value() && v >= 0 && v < 9.0e18f)
        o->mutable_dim(static_cast<int>(axes[k]))->set_dim_value(static_cast<int64_t>(v));
    }
    return;
  }
  std::vector<int64_t> sizes;
  if (!c.ints(3, sizes)) return;
  if (sizes.size() != n) fail("'sizes' has ", sizes.size(), " values for ", n, " axes");
  const auto* policy = c.attr("keep_aspect_ratio_policy");
  const std::string how = policy ? policy->s() : "stretch";
  if (how == "stretch") {
    for (size_t k = 0; k < n; ++k)
      if (sizes[k] >= 0) o->mutable_dim(static_cast<int>(axes[k]))->set_dim_value(sizes[k]);
    return;
  }
  if (how != "not_larger" && how != "not_smaller") return;
  // One scale for every axis (the smallest or the largest ratio), applied to each and rounded.
  float scale = how == "not_larger" ? INFINITY : -INFINITY;
  for (size_t k = 0; k < n; ++k) {
    const Dim& d = s->dim(static_cast<int>(axes[k]));
    if (!d.has_dim_value() || d.dim_value() <= 0) return;
    const float r = static_cast<float>(sizes[k]) / static_cast<float>(d.dim_value());
    scale = how == "not_larger" ? std::min(scale, r) : std::max(scale, r);
  }
  for (size_t k = 0; k < n; ++k) {
    const float v = std::round(scale * static_cast<float>(s->dim(static_cast<int>(axes[k])).dim_value()));
    if (v >= 0 && v < 9.0e18f) o->mutable_dim(static_cast<int>(axes[k]))->set_dim_value(static_cast<int64_t>(v));
  }
}

// Squeeze-21 and later (axes as an optional input, as since 13).
void squeeze(Ctx& c) {
  c.elem_from(0, 0);
  const Shape* s = c.shape(0);
  if (!s) return;
  const int64_t rank = s->dim_size();
  std::vector<int64_t> axes;
  Shape o;
  if (c.present(1)) {
    if (!c.ints(1, axes)) return;
    normalize_axes(axes, rank, false);
    for (int64_t i = 0; i < rank; ++i) {
      const Dim& d = s->dim(static_cast<int>(i));
      if (std::find(axes.begin(), axes.end(), i) == axes.end()) *o.add_dim() = d;
      else if (d.has_dim_value() && d.dim_value() != 1)
        fail("dimension ", i, " of the input is ", d.dim_value(), ", not 1, so it cannot be squeezed");
    }
  } else {
    for (int64_t i = 0; i < rank; ++i) {
      const Dim& d = s->dim(static_cast<int>(i));
      if (!d.has_dim_value()) return;  // which dims are 1 is not known
      if (d.dim_value() != 1) *o.add_dim() = d;
    }
  }
  *c.set_shape(0) = std::move(o);
}

// Unsqueeze-21 and later.
void unsqueeze(Ctx& c) {
  c.elem_from(0, 0);
  const Shape* s = c.shape(0);
  std::vector<int64_t> axes;
  if (!s || !c.ints(1, axes)) return;
  const int64_t rank = s->dim_size() + static_cast<int64_t>(axes.size());
  if (rank > kMaxRank) return;
  normalize_axes(axes, rank, true);
  Shape* o = c.set_shape(0);
  for (int64_t i = 0, j = 0; i < rank; ++i) {
    if (std::find(axes.begin(), axes.end(), i) != axes.end()) add_value(o, 1);
    else *o->add_dim() = s->dim(static_cast<int>(j++));
  }
}

// A 1-D shape input of a known length k that is not a constant: an output of rank k.
bool rank_from_length(Ctx& c, int i, int k) {
  const Shape* ss = c.shape(i);
  if (!ss || ss->dim_size() != 1 || !ss->dim(0).has_dim_value() || ss->dim(0).dim_value() > kMaxRank) return false;
  Shape* o = c.set_shape(k);
  for (int64_t j = 0; j < ss->dim(0).dim_value(); ++j) o->add_dim();
  return true;
}

// Reshape-19 and later (allowzero as since 14).
void reshape(Ctx& c) {
  c.elem_from(0, 0);
  std::vector<int64_t> target;
  if (!c.ints(1, target)) {
    rank_from_length(c, 1, 0);
    return;
  }
  if (static_cast<int64_t>(target.size()) > kMaxRank) return;
  const Shape* s = c.shape(0);
  const bool allowzero = c.attr_i("allowzero", 0) != 0;
  Shape o;
  int infer_at = -1;
  int64_t known = 1;  // the product of the output dims of known value, -1 when one is unknown
  for (size_t i = 0; i < target.size(); ++i) {
    const int64_t v = target[i];
    Dim* d = o.add_dim();
    if (v == -1) {
      if (infer_at >= 0) fail("the target shape has more than one -1");
      infer_at = static_cast<int>(i);
    } else if (v < -1) {
      fail("the target shape has the dimension ", v);
    } else if (v == 0 && !allowzero) {
      if (s && static_cast<int>(i) >= s->dim_size()) fail("the target shape has 0 at ", i, ", past the input's rank");
      if (s) *d = s->dim(static_cast<int>(i));
    } else {
      d->set_dim_value(v);
    }
    if (v != -1) {
      if (d->has_dim_value() && known >= 0 && (d->dim_value() == 0 || known <= INT64_MAX / d->dim_value()))
        known *= d->dim_value();
      else known = -1;
    }
  }
  if (infer_at >= 0 && s && known > 0) {
    int64_t total = 1;
    for (const auto& d : s->dim()) {
      if (!d.has_dim_value() || d.dim_value() < 0 || (d.dim_value() > 0 && total > INT64_MAX / d.dim_value())) {
        total = -1;
        break;
      }
      total *= d.dim_value();
    }
    if (total >= 0) {
      if (total % known != 0) fail("the input's ", total, " elements cannot be reshaped to the target shape");
      o.mutable_dim(infer_at)->set_dim_value(total / known);
    }
  }
  *c.set_shape(0) = std::move(o);
}

// Cast-19 and later: the element type `to` names, the input's shape.
void cast(Ctx& c) {
  c.set_elem(0, static_cast<int>(c.attr_i("to", 0)));
  c.copy_shape(0, 0);
}

// CastLike-19 and later: the element type of input 1, the shape of input 0.
void cast_like(Ctx& c) {
  c.elem_from(1, 0);
  c.copy_shape(0, 0);
}

// Constant-19 and later: the type of the one value attribute.
void constant(Ctx& c) {
  if (!c.has_out(0)) return;
  const onnx::AttributeProto* value = nullptr;
  int count = 0;
  for (const auto& a : c.np.attribute())
    if (a.name().rfind("value", 0) == 0 || a.name() == "sparse_value") {
      value = &a;
      ++count;
    }
  if (count != 1) return;  // the checker's to judge
  const std::string& name = value->name();
  onnx::TypeProto& t = c.out[0];
  t.Clear();
  if (name == "value") {
    t.mutable_tensor_type()->set_elem_type(value->t().data_type());
    auto* s = t.mutable_tensor_type()->mutable_shape();
    for (int64_t d : value->t().dims()) add_value(s, d);
  } else if (name == "sparse_value") {
    t.mutable_sparse_tensor_type()->set_elem_type(value->sparse_tensor().values().data_type());
    auto* s = t.mutable_sparse_tensor_type()->mutable_shape();
    for (int64_t d : value->sparse_tensor().dims()) add_value(s, d);
  } else {
    const bool list = name.back() == 's';
    const std::string base = list ? name.substr(0, name.size() - 1) : name;
    const int elem = base == "value_float"    ? onnx::TensorProto::FLOAT
                     : base == "value_int"    ? onnx::TensorProto::INT64
                     : base == "value_string" ? onnx::TensorProto::STRING
                                              : 0;
    if (!elem) return;
    t.mutable_tensor_type()->set_elem_type(elem);
    auto* s = t.mutable_tensor_type()->mutable_shape();
    if (list)
      add_value(s, base == "value_float" ? value->floats_size()
                   : base == "value_int" ? value->ints_size()
                                         : value->strings_size());
  }
}

// ConstantOfShape-20 and later: the element type of `value` (float when absent), the shape its input holds.
void constant_of_shape(Ctx& c) {
  const auto* v = c.attr("value");
  c.set_elem(0, v && v->has_t() ? v->t().data_type() : onnx::TensorProto::FLOAT);
  std::vector<int64_t> dims;
  if (!c.ints(0, dims)) {
    rank_from_length(c, 0, 0);
    return;
  }
  for (int64_t d : dims)
    if (d < 0) fail("the shape input holds the negative dimension ", d);
  if (static_cast<int64_t>(dims.size()) > kMaxRank) return;
  Shape* o = c.set_shape(0);
  for (int64_t d : dims) add_value(o, d);
}

// Shape-19 and later: the length of the [start, end) slice of the input's dims.
void shape_op(Ctx& c) {
  c.set_elem(0, onnx::TensorProto::INT64);
  Shape* o = c.set_shape(0);
  const Shape* s = c.shape(0);
  if (!s) {
    o->add_dim();
    return;
  }
  const int64_t rank = s->dim_size();
  auto clamp = [&](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
  const int64_t start = clamp(c.attr_i("start", 0)), end = clamp(c.attr_i("end", rank));
  add_value(o, std::max<int64_t>(0, end - start));
}

// Size-19 and later: an int64 scalar.
void size_op(Ctx& c) {
  c.set_elem(0, onnx::TensorProto::INT64);
  c.set_shape(0);
}

// Transpose-21 and later.
void transpose(Ctx& c) {
  c.elem_from(0, 0);
  const Shape* s = c.shape(0);
  if (!s) return;
  const int64_t rank = s->dim_size();
  std::vector<int64_t> perm;
  if (const auto* p = c.attr("perm")) perm.assign(p->ints().begin(), p->ints().end());
  else
    for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  if (static_cast<int64_t>(perm.size()) != rank) fail("'perm' has ", perm.size(), " values for rank ", rank);
  std::vector<char> seen(static_cast<size_t>(rank), 0);
  for (int64_t p : perm)
    if (p < 0 || p >= rank || seen[static_cast<size_t>(p)]++) fail("'perm' is not a permutation of 0..", rank - 1);
  Shape* o = c.set_shape(0);
  for (int64_t p : perm) *o->add_dim() = s->dim(static_cast<int>(p));
}

// Flatten-21 and later: [product of the dims before axis, product of the rest].
void flatten(Ctx& c) {
  c.elem_from(0, 0);
  const Shape* s = c.shape(0);
  if (!s) return;
  const int64_t rank = s->dim_size();
  int64_t axis = c.attr_i("axis", 1);
  if (axis < -rank || axis > rank) fail("attribute 'axis' is ", axis, ", outside [", -rank, ", ", rank, "]");
  if (axis < 0) axis += rank;
  auto product = [&](int64_t from, int64_t to, Dim* d) {
    int64_t p = 1;
    for (int64_t i = from; i < to; ++i) {
      const Dim& x = s->dim(static_cast<int>(i));
      if (!x.has_dim_value() || x.dim_value() < 0 || (x.dim_value() > 0 && p > INT64_MAX / x.dim_value())) return;
      p *= x.dim_value();
    }
    d->set_dim_value(p);
  };
  Shape* o = c.set_shape(0);
  product(0, axis, o->add_dim());
  product(axis, rank, o->add_dim());
}

// Multidirectional (numpy) broadcasting of inputs 0 and 1 into output 0.
void broadcast(Ctx& c) {
  c.elem_from(0, 0);
  const Shape* a = c.shape(0);
  const Shape* b = c.shape(1);
  if (!a || !b) return;
  const int ra = a->dim_size(), rb = b->dim_size(), r = std::max(ra, rb);
  Shape o;
  for (int i = 0; i < r; ++i) {
    const Dim* x = i - (r - ra) >= 0 ? &a->dim(i - (r - ra)) : nullptr;
    const Dim* y = i - (r - rb) >= 0 ? &b->dim(i - (r - rb)) : nullptr;
    Dim* d = o.add_dim();
    if (!x || !y) {
      *d = x ? *x : *y;
    } else if (x->has_dim_value() && y->has_dim_value()) {
      const int64_t u = x->dim_value(), v = y->dim_value();
      if (u != v && u != 1 && v != 1) fail("dimensions ", u, " and ", v, " do not broadcast");
      d->set_dim_value(u == 1 ? v : u);
    } else if (x->has_dim_value() && x->dim_value() == 1) {
      *d = *y;
    } else if (y->has_dim_value() && y->dim_value() == 1) {
      *d = *x;
    } else if (x->has_dim_value() && x->dim_value() > 1) {
      d->set_dim_value(x->dim_value());
    } else if (y->has_dim_value() && y->dim_value() > 1) {
      d->set_dim_value(y->dim_value());
    } else if (x->has_dim_param() && y->has_dim_param() && x->dim_param() == y->dim_param()) {
      *d = *x;
    }
  }
  *c.set_shape(0) = std::move(o);
}

// Dropout-22: the output and its mask have the input's shape.
void dropout(Ctx& c) {
  c.elem_from(0, 0);
  c.copy_shape(0, 0);
  if (c.has_out(1)) c.copy_shape(0, 1);
}

// RMSNormalization-23: the input's shape; its element type is the input's when the scale's is the same.
void rms_normalization(Ctx& c) {
  if (c.elem(0) != 0 && c.elem(1) != 0 && c.elem(0) != c.elem(1)) {
    c.out[0].Clear();  // onnx's inference and the definition's constraints disagree here: nothing is claimed
    return;
  }
  c.elem_from(0, 0);
  c.copy_shape(0, 0);
}

// RotaryEmbedding-23: rank 3 (with num_heads) or 4; the output has the input's shape.
void rotary_embedding(Ctx& c) {
  c.elem_from(0, 0);
  const Shape* s = c.shape(0);
  if (!s) return;
  if (s->dim_size() != 3 && s->dim_size() != 4) fail("the input has rank ", s->dim_size(), ", not 3 or 4");
  if (s->dim_size() == 3 && !c.attr("num_heads")) fail("the input has rank 3 but no 'num_heads' attribute is given");
  c.copy_shape(0, 0);
}

// Attention-23: Y from Q and V ([batch, heads, q_seq, v_head] or [batch, q_seq, heads * v_head]); present_key and
// present_value when past_key and past_value are given (the past sequence grown by K's).
void attention(Ctx& c) {
  for (int k = 0; k < static_cast<int>(c.out.size()); ++k) c.elem_from(k == 2 ? 2 : 0, k);
  const Shape* q = c.shape(0);
  const Shape* kk = c.shape(1);
  const Shape* v = c.shape(2);
  if (!q || !kk || !v) return;
  const int rq = q->dim_size();
  if (rq != 3 && rq != 4) fail("Q has rank ", rq, ", not 3 or 4");
  if (kk->dim_size() != rq || v->dim_size() != rq) return;
  Shape* y = c.set_shape(0);
  if (rq == 4) {
    *y->add_dim() = q->dim(0);
    *y->add_dim() = q->dim(1);
    *y->add_dim() = q->dim(2);
    *y->add_dim() = v->dim(3);
  } else {
    const auto* qh = c.attr("q_num_heads");
    const auto* kvh = c.attr("kv_num_heads");
    if (!qh || !kvh) fail("Q has rank 3 but 'q_num_heads' and 'kv_num_heads' are not both given");
    *y->add_dim() = q->dim(0);
    *y->add_dim() = q->dim(1);
    Dim* h = y->add_dim();
    if (v->dim(2).has_dim_value() && kvh->i() > 0 && v->dim(2).dim_value() % kvh->i() == 0)
      h->set_dim_value(qh->i() * (v->dim(2).dim_value() / kvh->i()));
  }
  // present_key / present_value: past (rank 4) with its sequence grown by K's / V's.
  for (int k = 1; k <= 2; ++k) {
    const Shape* past = c.shape(3 + k);
    const Shape* now = k == 1 ? kk : v;
    if (!c.has_out(k) || !past || past->dim_size() != 4) continue;
    Shape* o = c.set_shape(k);
    *o = *past;
    Dim* seq = o->mutable_dim(2);
    const Dim& add = now->dim(rq == 4 ? 2 : 1);
    if (past->dim(2).has_dim_value() && add.has_dim_value())
      seq->set_dim_value(past->dim(2).dim_value() + add.dim_value());
    else seq->Clear();
  }
}

struct Entry {
  const char* op;
  int since;
  Fn fn;
};

// Each definition newer than onnx 1.12's whose inference condlint has.
constexpr Entry kTable[] = {
    {"ReduceL1", 18, reduce},
    {"ReduceL2", 18, reduce},
    {"ReduceLogSum", 18, reduce},
    {"ReduceLogSumExp", 18, reduce},
    {"ReduceMax", 18, reduce},
    {"ReduceMax", 20, reduce},
    {"ReduceMean", 18, reduce},
    {"ReduceMin", 18, reduce},
    {"ReduceMin", 20, reduce},
    {"ReduceProd", 18, reduce},
    {"ReduceSumSquare", 18, reduce},
    {"Split", 18, split},
    {"Pad", 18, pad},
    {"Pad", 19, pad},
    {"Pad", 21, pad},
    {"Pad", 23, pad},
    {"Pad", 24, pad},
    {"Pad", 25, pad},
    {"Resize", 18, resize},
    {"Resize", 19, resize},
    {"Squeeze", 21, squeeze},
    {"Squeeze", 23, squeeze},
    {"Squeeze", 24, squeeze},
    {"Squeeze", 25, squeeze},
    {"Unsqueeze", 21, unsqueeze},
    {"Unsqueeze", 23, unsqueeze},
    {"Unsqueeze", 24, unsqueeze},
    {"Unsqueeze", 25, unsqueeze},
    {"Reshape", 19, reshape},
    {"Reshape", 21, reshape},
    {"Reshape", 23, reshape},
    {"Reshape", 24, reshape},
    {"Reshape", 25, reshape},
    {"Cast", 19, cast},
    {"Cast", 21, cast},
    {"Cast", 23, cast},
    {"Cast", 24, cast},
    {"Cast", 25, cast},
    {"CastLike", 19, cast_like},
    {"CastLike", 21, cast_like},
    {"CastLike", 23, cast_like},
    {"CastLike", 24, cast_like},
    {"CastLike", 25, cast_like},
    {"Constant", 19, constant},
    {"Constant", 21, constant},
    {"Constant", 23, constant},
    {"Constant", 24, constant},
    {"Constant", 25, constant},
    {"ConstantOfShape", 20, constant_of_shape},
    {"ConstantOfShape", 21, constant_of_shape},
    {"ConstantOfShape", 23, constant_of_shape},
    {"ConstantOfShape", 24, constant_of_shape},
    {"ConstantOfShape", 25, constant_of_shape},
    {"Shape", 19, shape_op},
    {"Shape", 21, shape_op},
    {"Shape", 23, shape_op},
    {"Shape", 24, shape_op},
    {"Shape", 25, shape_op},
    {"Size", 19, size_op},
    {"Size", 21, size_op},
    {"Size", 23, size_op},
    {"Size", 24, size_op},
    {"Size", 25, size_op},
    {"Identity", 19, identity},
    {"Identity", 21, identity},
    {"Identity", 23, identity},
    {"Identity", 24, identity},
    {"Identity", 25, identity},
    {"Transpose", 21, transpose},
    {"Transpose", 23, transpose},
    {"Transpose", 24, transpose},
    {"Transpose", 25, transpose},
    {"Flatten", 21, flatten},
    {"Flatten", 23, flatten},
    {"Flatten", 24, flatten},
    {"Flatten", 25, flatten},
    {"Equal", 19, broadcast},
    {"BitwiseAnd", 18, broadcast},
    {"BitwiseOr", 18, broadcast},
    {"BitwiseXor", 18, broadcast},
    {"BitwiseNot", 18, same_shape},
    {"Dropout", 22, dropout},
    {"Gelu", 20, same_shape},
    {"Mish", 18, same_shape},
    {"Mish", 22, same_shape},
    {"Swish", 24, same_shape},
    {"IsNaN", 20, same_shape},
    {"IsInf", 20, same_shape},
    {"Acos", 22, same_shape},
    {"Acosh", 22, same_shape},
    {"Asin", 22, same_shape},
    {"Asinh", 22, same_shape},
    {"Atan", 22, same_shape},
    {"Atanh", 22, same_shape},
    {"Cos", 22, same_shape},
    {"Cosh", 22, same_shape},
    {"Sin", 22, same_shape},
    {"Sinh", 22, same_shape},
    {"Tan", 22, same_shape},
    {"Elu", 22, same_shape},
    {"Selu", 22, same_shape},
    {"HardSigmoid", 22, same_shape},
    {"HardSwish", 22, same_shape},
    {"Softplus", 22, same_shape},
    {"Softsign", 22, same_shape},
    {"ThresholdedRelu", 22, same_shape},
    {"Round", 22, same_shape},
    {"GroupNormalization", 18, same_shape},
    {"GroupNormalization", 21, same_shape},
    {"RMSNormalization", 23, rms_normalization},
    {"RotaryEmbedding", 23, rotary_embedding},
    {"Attention", 23, attention},
};

Fn find(const std::string& op, int since) {
  for (const auto& e : kTable)
    if (e.since == since && op == e.op) return e.fn;
  return nullptr;
}

}  // namespace

bool has_inference(const std::string& op, int since_version) { return find(op, since_version) != nullptr; }

Outcome infer(const onnx::NodeProto& np, int since_version, const std::vector<Input>& in,
              std::vector<onnx::TypeProto>& out, std::string& error) {
  const Fn fn = find(np.op_type(), since_version);
  if (!fn) return Outcome::None;
  // Inputs whose types nest deeper than a tensor are passed through by Identity only.
  for (const auto& i : in)
    if (i.present && i.type && !i.type->has_tensor_type() && fn != identity) return Outcome::None;
  Ctx c{np, in, out};
  try {
    fn(c);
  } catch (const Fail& f) {
    error = f.what;
    return Outcome::Failed;
  }
  for (auto& t : out)
    if (t.has_tensor_type() && t.tensor_type().elem_type() == 0) t.Clear();  // no type without its element type
  return Outcome::Inferred;
}

}  // namespace condlint::newer_inference
