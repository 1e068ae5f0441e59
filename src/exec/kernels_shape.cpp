// Shape and data-movement kernels.
#include <numeric>

#include "exec/kernel_util.hpp"
#include "exec/onnx_io.hpp"

namespace condlint::exec {

Tensor reshape_copy(const Tensor& x, Dims shape) {
  Tensor r = x;
  if (checked_numel(shape) != x.numel()) fail("cannot reshape " + x.describe() + " to " + dims_str(shape));
  r.shape = std::move(shape);
  return r;
}

Tensor take_index(const Tensor& x, int64_t axis, int64_t k) {
  Dims od = x.shape;
  od.erase(od.begin() + axis);
  Tensor r(x.dt, od);
  int64_t outer = 1, inner = 1;
  for (int64_t a = 0; a < axis; ++a) outer *= x.shape[a];
  for (size_t a = axis + 1; a < x.rank(); ++a) inner *= x.shape[a];
  const int64_t len = x.shape[axis];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) copy_elem(x, (o * len + k) * inner + i, r, o * inner + i);
  return r;
}

Tensor concat(const std::vector<const Tensor*>& xs, int64_t axis) {
  if (xs.empty()) fail("concat of nothing");
  const Tensor& f = *xs[0];
  Dims od = f.shape;
  od[axis] = 0;
  for (auto* x : xs) {
    if (x->rank() != f.rank() || x->dt != f.dt)
      fail("concat operands differ in rank or type: " + f.describe() + " and " + x->describe());
    for (size_t a = 0; a < f.rank(); ++a)
      if (static_cast<int64_t>(a) != axis && x->shape[a] != f.shape[a])
        fail("concat operands differ outside the axis: " + f.describe() + " and " + x->describe());
    od[axis] += x->shape[axis];
  }
  Tensor r(f.dt, od);
  int64_t outer = 1, inner = 1;
  for (int64_t a = 0; a < axis; ++a) outer *= od[a];
  for (size_t a = axis + 1; a < od.size(); ++a) inner *= od[a];
  int64_t off = 0;
  for (auto* x : xs) {
    const int64_t len = x->shape[axis];
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < len * inner; ++j) copy_elem(*x, o * len * inner + j, r, (o * od[axis] + off) * inner + j);
    off += len;
  }
  return r;
}

Tensor stack(const std::vector<TensorP>& xs, int64_t axis, DT dt, const Dims& elem) {
  if (xs.empty()) {
    Dims d = elem;
    d.insert(d.begin() + axis, 0);
    return Tensor(dt, d);
  }
  std::vector<Tensor> tmp;
  std::vector<const Tensor*> ps;
  tmp.reserve(xs.size());
  for (auto& x : xs) {
    if (x->shape != xs[0]->shape) fail("stacked tensors differ in shape");
    Dims d = x->shape;
    d.insert(d.begin() + axis, 1);
    tmp.push_back(reshape_copy(*x, d));
  }
  for (auto& t : tmp) ps.push_back(&t);
  return concat(ps, axis);
}

Tensor transpose(const Tensor& x, const std::vector<int64_t>& perm) {
  const size_t r = x.rank();
  if (perm.size() != r) fail("perm has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(r));
  std::vector<bool> seen(r, false);
  Dims od(r);
  for (size_t k = 0; k < r; ++k) {
    if (perm[k] < 0 || perm[k] >= static_cast<int64_t>(r) || seen[perm[k]]) fail("perm is not a permutation");
    seen[perm[k]] = true;
    od[k] = x.shape[perm[k]];
  }
  Tensor y(x.dt, od);
  const Dims xs = strides_of(x.shape);
  Dims st(r);
  for (size_t k = 0; k < r; ++k) st[k] = xs[perm[k]];
  for_broadcast(od, std::array<Dims, 1>{st},
                [&](int64_t k, const std::array<int64_t, 1>& ix) { copy_elem(x, ix[0], y, k); });
  return y;
}

namespace {

void k_reshape(OpCtx& c) {
  const Tensor& x = c.t(0);
  std::vector<int64_t> s = c.has(1) ? to_i64s(c.t(1)) : c.attr_ints("shape");
  const bool allowzero = c.attr_i("allowzero", 0) != 0;
  int64_t infer = -1, known = 1;
  for (size_t k = 0; k < s.size(); ++k) {
    if (s[k] == 0 && !allowzero) {
      if (k >= x.rank()) fail("Reshape copies dimension " + std::to_string(k) + " the input does not have");
      s[k] = x.shape[k];
    }
    if (s[k] == -1) {
      if (infer >= 0) fail("Reshape has more than one -1");
      infer = static_cast<int64_t>(k);
    } else if (s[k] < 0) fail("Reshape dimension " + std::to_string(s[k]));
    else known *= s[k];
  }
  if (infer >= 0) {
    if (known == 0 || x.numel() % known) fail("Reshape cannot infer -1 for " + x.describe() + " to " + dims_str(s));
    s[infer] = x.numel() / known;
  }
  c.set(0, reshape_copy(x, s));
}

void k_flatten(OpCtx& c) {
  const Tensor& x = c.t(0);
  const int64_t r = static_cast<int64_t>(x.rank());
  int64_t axis = c.attr_i("axis", 1);
  if (axis < 0) axis += r;
  if (axis < 0 || axis > r) fail("Flatten axis out of range");
  int64_t a = 1, b = 1;
  for (int64_t k = 0; k < r; ++k) (k < axis ? a : b) *= x.shape[k];
  c.set(0, reshape_copy(x, {a, b}));
}

void k_transpose(OpCtx& c) {
  const Tensor& x = c.t(0);
  auto perm = c.attr_ints("perm");
  if (perm.empty())
    for (int64_t k = static_cast<int64_t>(x.rank()) - 1; k >= 0; --k) perm.push_back(k);
  c.set(0, transpose(x, perm));
}

void k_concat(OpCtx& c) {
  std::vector<const Tensor*> xs;
  for (size_t k = 0; k < c.n_in(); ++k) xs.push_back(&c.t(k));
  if (xs.empty()) fail("Concat without inputs");
  c.set(0, concat(xs, norm_axis(c.attr_i("axis", 0), xs[0]->rank())));
}

std::vector<int64_t> axes_input_or_attr(OpCtx& c, size_t input) {
  if (c.has(input)) return to_i64s(c.t(input));
  return c.attr_ints("axes");
}

void k_squeeze(OpCtx& c) {
  const Tensor& x = c.t(0);
  auto axes = axes_input_or_attr(c, 1);
  const int64_t r = static_cast<int64_t>(x.rank());
  std::vector<bool> drop(r, false);
  if (axes.empty()) {
    for (int64_t k = 0; k < r; ++k) drop[k] = x.shape[k] == 1;
  } else {
    for (int64_t a : axes) {
      a = norm_axis(a, r);
      if (x.shape[a] != 1) fail("Squeeze axis " + std::to_string(a) + " has size " + std::to_string(x.shape[a]));
      drop[a] = true;
    }
  }
  Dims d;
  for (int64_t k = 0; k < r; ++k)
    if (!drop[k]) d.push_back(x.shape[k]);
  c.set(0, reshape_copy(x, d));
}

void k_unsqueeze(OpCtx& c) {
  const Tensor& x = c.t(0);
  auto axes = axes_input_or_attr(c, 1);
  const int64_t r = static_cast<int64_t>(x.rank() + axes.size());
  std::vector<bool> add(r, false);
  for (int64_t a : axes) {
    a = norm_axis(a, r);
    if (add[a]) fail("Unsqueeze axis repeated");
    add[a] = true;
  }
  Dims d;
  size_t j = 0;
  for (int64_t k = 0; k < r; ++k) d.push_back(add[k] ? 1 : x.shape[j++]);
  c.set(0, reshape_copy(x, d));
}

void k_shape(OpCtx& c) {
  const Tensor& x = c.t(0);
  const int64_t r = static_cast<int64_t>(x.rank());
  int64_t s = c.attr_i("start", 0), e = c.attr_i("end", r);
  if (s < 0) s += r;
  if (e < 0) e += r;
  s = std::clamp<int64_t>(s, 0, r);
  e = std::clamp<int64_t>(e, 0, r);
  std::vector<int64_t> v;
  for (int64_t k = s; k < e; ++k) v.push_back(x.shape[k]);
  c.set(0, i64_tensor(v, {static_cast<int64_t>(v.size())}));
}

void k_size(OpCtx& c) { c.set(0, i64_tensor({c.t(0).numel()}, {})); }

void k_constant(OpCtx& c) {
  if (c.node.attribute_size() != 1) fail("Constant needs exactly one attribute");
  const auto& a = c.node.attribute(0);
  const std::string& n = a.name();
  if (n == "value") {
    c.set(0, tensor_from_proto(a.t()));
  } else if (n == "value_float") {
    c.set(0, scalar_tensor(DT::F32, a.f()));
  } else if (n == "value_int") {
    c.set(0, i64_tensor({a.i()}, {}));
  } else if (n == "value_floats") {
    Tensor t(DT::F32, {a.floats_size()});
    for (int k = 0; k < a.floats_size(); ++k) t.f[k] = a.floats(k);
    c.set(0, std::move(t));
  } else if (n == "value_ints") {
    c.set(0, i64_tensor({a.ints().begin(), a.ints().end()}, {a.ints_size()}));
  } else if (n == "value_string") {
    Tensor t(DT::Str, {});
    t.s[0] = a.s();
    c.set(0, std::move(t));
  } else if (n == "value_strings") {
    Tensor t(DT::Str, {a.strings_size()});
    for (int k = 0; k < a.strings_size(); ++k) t.s[k] = a.strings(k);
    c.set(0, std::move(t));
  } else {
    throw ExecError(ErrKind::Unsupported, "unsupported op Constant with attribute '" + n + "' at " + c.path);
  }
}

void k_constant_of_shape(OpCtx& c) {
  const auto shape = to_i64s(c.t(0));
  Tensor v = c.has_attr("value") ? tensor_from_proto(c.attr("value")->t()) : scalar_tensor(DT::F32, 0);
  if (v.numel() != 1) fail("ConstantOfShape value must hold one element");
  Tensor r(v.dt, shape);
  for (int64_t k = 0; k < r.numel(); ++k) copy_elem(v, 0, r, k);
  c.set(0, std::move(r));
}

void k_range(OpCtx& c) {
  const Tensor& s = c.t(0);
  const DT dt = s.dt;
  if (is_float(dt)) {
    const double a = s.getf(0), lim = c.t(1).getf(0), d = c.t(2).getf(0);
    if (d == 0) fail("Range delta is 0");
    const double cnt = std::max(0.0, std::ceil((lim - a) / d));
    if (cnt > 1e12) throw ExecError(ErrKind::Resource, "Range would produce " + std::to_string(cnt) + " elements");
    Tensor r(dt, {static_cast<int64_t>(cnt)});
    for (int64_t k = 0; k < r.numel(); ++k) r.f[k] = round_to(dt, a + k * d);
    c.set(0, std::move(r));
  } else {
    const int64_t a = s.geti(0), lim = c.t(1).geti(0), d = c.t(2).geti(0);
    if (d == 0) fail("Range delta is 0");
    const double cnt = std::max(0.0, std::ceil((static_cast<double>(lim) - a) / static_cast<double>(d)));
    if (cnt > 1e12) throw ExecError(ErrKind::Resource, "Range would produce " + std::to_string(cnt) + " elements");
    Tensor r(dt, {static_cast<int64_t>(cnt)});
    for (int64_t k = 0; k < r.numel(); ++k) r.i[k] = wrap_to(dt, a + k * d);
    c.set(0, std::move(r));
  }
}

void k_expand(OpCtx& c) {
  const Tensor& x = c.t(0);
  const Dims s = to_i64s(c.t(1));
  const Dims o = broadcast_shapes({&x.shape, &s});
  Tensor r(x.dt, o);
  for_broadcast(o, std::array<Dims, 1>{bstrides(x.shape, o)},
                [&](int64_t k, const std::array<int64_t, 1>& ix) { copy_elem(x, ix[0], r, k); });
  c.set(0, std::move(r));
}

void k_tile(OpCtx& c) {
  const Tensor& x = c.t(0);
  const auto rep = to_i64s(c.t(1));
  if (rep.size() != x.rank()) fail("Tile repeats has the wrong length");
  Dims o(x.rank());
  for (size_t k = 0; k < x.rank(); ++k) {
    if (rep[k] < 0) fail("Tile repeat is negative");
    o[k] = x.shape[k] * rep[k];
  }
  Tensor r(x.dt, o);
  const Dims xs = strides_of(x.shape);
  const int64_t n = r.numel();
  std::vector<int64_t> ctr(o.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t src = 0;
    for (size_t a = 0; a < o.size(); ++a) src += (ctr[a] % x.shape[a]) * xs[a];
    copy_elem(x, src, r, k);
    for (int a = static_cast<int>(o.size()) - 1; a >= 0; --a) {
      if (++ctr[a] < o[a]) break;
      ctr[a] = 0;
    }
  }
  c.set(0, std::move(r));
}

void k_slice(OpCtx& c) {
  const Tensor& x = c.t(0);
  std::vector<int64_t> starts, ends, axes, steps;
  if (c.opset < 10 || (!c.has(1) && c.has_attr("starts"))) {
    starts = c.attr_ints("starts");
    ends = c.attr_ints("ends");
    axes = c.attr_ints("axes");
  } else {
    starts = to_i64s(c.t(1));
    ends = to_i64s(c.t(2));
    if (c.has(3)) axes = to_i64s(c.t(3));
    if (c.has(4)) steps = to_i64s(c.t(4));
  }
  const int64_t r = static_cast<int64_t>(x.rank());
  if (axes.empty())
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    fail("Slice starts/ends/axes/steps differ in length");
  Dims st(r, 0), cnt = x.shape;
  std::vector<int64_t> step(r, 1);
  for (size_t k = 0; k < starts.size(); ++k) {
    const int64_t a = norm_axis(axes[k], r);
    const int64_t d = x.shape[a];
    const int64_t sp = steps[k];
    if (sp == 0) fail("Slice step is 0");
    int64_t s = starts[k], e = ends[k];
    if (s < 0) s += d;
    if (e < 0) e += d;
    if (sp > 0) {
      s = std::clamp<int64_t>(s, 0, d);
      e = std::clamp<int64_t>(e, 0, d);
      cnt[a] = e > s ? (e - s + sp - 1) / sp : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, d - 1);
      e = std::clamp<int64_t>(e, -1, d - 1);
      cnt[a] = s > e ? (s - e - sp - 1) / (-sp) : 0;
    }
    if (ends[k] <= INT64_MIN / 2 && sp < 0) cnt[a] = d > 0 ? (s + 1 - sp - 1) / (-sp) : 0;
    st[a] = s;
    step[a] = sp;
  }
  Tensor y(x.dt, cnt);
  const Dims xs = strides_of(x.shape);
  int64_t base = 0;
  Dims s2(r);
  for (int64_t a = 0; a < r; ++a) {
    base += st[a] * xs[a];
    s2[a] = step[a] * xs[a];
  }
  for_broadcast(cnt, std::array<Dims, 1>{s2},
                [&](int64_t k, const std::array<int64_t, 1>& ix) { copy_elem(x, base + ix[0], y, k); });
  c.set(0, std::move(y));
}

void k_gather(OpCtx& c) {
  const Tensor& x = c.t(0);
  const Tensor& ind = c.t(1);
  const int64_t axis = norm_axis(c.attr_i("axis", 0), x.rank());
  Dims od;
  for (int64_t a = 0; a < axis; ++a) od.push_back(x.shape[a]);
  for (int64_t d : ind.shape) od.push_back(d);
  for (size_t a = axis + 1; a < x.rank(); ++a) od.push_back(x.shape[a]);
  Tensor r(x.dt, od);
  int64_t outer = 1, inner = 1;
  for (int64_t a = 0; a < axis; ++a) outer *= x.shape[a];
  for (size_t a = axis + 1; a < x.rank(); ++a) inner *= x.shape[a];
  const int64_t len = x.shape[axis], ni = ind.numel();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < ni; ++j) {
      int64_t idx = ind.geti(j);
      if (idx < 0) idx += len;
      if (idx < 0 || idx >= len)
        fail("Gather index " + std::to_string(ind.geti(j)) + " out of range for axis of size " + std::to_string(len));
      for (int64_t i = 0; i < inner; ++i) copy_elem(x, (o * len + idx) * inner + i, r, (o * ni + j) * inner + i);
    }
  c.set(0, std::move(r));
}

void k_gather_elements(OpCtx& c) {
  const Tensor& x = c.t(0);
  const Tensor& ind = c.t(1);
  if (ind.rank() != x.rank()) fail("GatherElements ranks differ");
  const int64_t axis = norm_axis(c.attr_i("axis", 0), x.rank());
  Tensor r(x.dt, ind.shape);
  const Dims xs = strides_of(x.shape);
  const Dims is = strides_of(ind.shape);
  for (int64_t k = 0; k < ind.numel(); ++k) {
    int64_t rem = k, src = 0;
    for (size_t a = 0; a < ind.rank(); ++a) {
      int64_t co = rem / is[a];
      rem %= is[a];
      if (static_cast<int64_t>(a) == axis) {
        co = ind.geti(k);
        if (co < 0) co += x.shape[a];
        if (co < 0 || co >= x.shape[a]) fail("GatherElements index out of range");
      } else if (co >= x.shape[a]) fail("GatherElements indices larger than data");
      src += co * xs[a];
    }
    copy_elem(x, src, r, k);
  }
  c.set(0, std::move(r));
}

void k_gather_nd(OpCtx& c) {
  const Tensor& x = c.t(0);
  const Tensor& ind = c.t(1);
  const int64_t b = c.attr_i("batch_dims", 0);
  if (ind.rank() < 1) fail("GatherND indices must have rank >= 1");
  const int64_t q = static_cast<int64_t>(ind.rank()), r = static_cast<int64_t>(x.rank());
  const int64_t last = ind.shape[q - 1];
  if (b + last > r) fail("GatherND index tuple too long");
  Dims od(ind.shape.begin(), ind.shape.end() - 1);
  for (int64_t a = b + last; a < r; ++a) od.push_back(x.shape[a]);
  Tensor out(x.dt, od);
  int64_t batch = 1;
  for (int64_t a = 0; a < b; ++a) batch *= x.shape[a];
  int64_t inner = 1;
  for (int64_t a = b + last; a < r; ++a) inner *= x.shape[a];
  const Dims xs = strides_of(x.shape);
  const int64_t tuples = last ? ind.numel() / last : 0;
  const int64_t per_batch = batch ? tuples / batch : 0;
  const int64_t xbatch = batch ? x.numel() / batch : 0;
  for (int64_t t = 0; t < tuples; ++t) {
    const int64_t bi = per_batch ? t / per_batch : 0;
    int64_t src = bi * xbatch;
    for (int64_t j = 0; j < last; ++j) {
      int64_t v = ind.geti(t * last + j);
      const int64_t d = x.shape[b + j];
      if (v < 0) v += d;
      if (v < 0 || v >= d) fail("GatherND index out of range");
      src += v * xs[b + j];
    }
    for (int64_t i = 0; i < inner; ++i) copy_elem(x, src + i, out, t * inner + i);
  }
  c.set(0, std::move(out));
}

void k_scatter_elements(OpCtx& c) {
  const Tensor& x = c.t(0);
  const Tensor& ind = c.t(1);
  const Tensor& upd = c.t(2);
  const int64_t axis = norm_axis(c.attr_i("axis", 0), x.rank());
  const std::string red = c.attr_s("reduction", "none");
  if (upd.dt != x.dt) fail("ScatterElements updates and data differ in element type");
  if (upd.shape != ind.shape) fail("ScatterElements updates and indices differ in shape");
  if (ind.rank() != x.rank()) fail("ScatterElements indices and data differ in rank");
  Tensor r = x;
  const Dims xs = strides_of(x.shape);
  const Dims is = strides_of(ind.shape);
  for (int64_t k = 0; k < ind.numel(); ++k) {
    int64_t rem = k, dst = 0;
    for (size_t a = 0; a < ind.rank(); ++a) {
      int64_t co = rem / is[a];
      rem %= is[a];
      if (static_cast<int64_t>(a) == axis) {
        co = ind.geti(k);
        if (co < 0) co += x.shape[a];
        if (co < 0 || co >= x.shape[a]) fail("ScatterElements index out of range");
      }
      dst += co * xs[a];
    }
    if (red == "none") copy_elem(upd, k, r, dst);
    else if (is_float(r.dt)) {
      double& v = r.f[dst];
      const double u = upd.f[k];
      v = red == "add" ? v + u : red == "mul" ? v * u : red == "max" ? std::max(v, u) : std::min(v, u);
    } else {
      int64_t& v = r.i[dst];
      const int64_t u = upd.i[k];
      v = red == "add" ? v + u : red == "mul" ? v * u : red == "max" ? std::max(v, u) : std::min(v, u);
    }
  }
  normalize(r);
  c.set(0, std::move(r));
}

void k_scatter_nd(OpCtx& c) {
  const Tensor& x = c.t(0);
  const Tensor& ind = c.t(1);
  const Tensor& upd = c.t(2);
  const std::string red = c.attr_s("reduction", "none");
  if (upd.dt != x.dt) fail("ScatterND updates and data differ in element type");
  Tensor r = x;
  const int64_t last = ind.shape.empty() ? 0 : ind.shape.back();
  if (last > static_cast<int64_t>(x.rank())) fail("ScatterND index tuple too long");
  int64_t inner = 1;
  for (size_t a = last; a < x.rank(); ++a) inner *= x.shape[a];
  const Dims xs = strides_of(x.shape);
  const int64_t tuples = last ? ind.numel() / last : 0;
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t dst = 0;
    for (int64_t j = 0; j < last; ++j) {
      int64_t v = ind.geti(t * last + j);
      if (v < 0) v += x.shape[j];
      if (v < 0 || v >= x.shape[j]) fail("ScatterND index out of range");
      dst += v * xs[j];
    }
    for (int64_t i = 0; i < inner; ++i) {
      if (t * inner + i >= upd.numel()) fail("ScatterND updates too small");
      if (red == "none") copy_elem(upd, t * inner + i, r, dst + i);
      else if (is_float(r.dt)) {
        double& v = r.f[dst + i];
        const double u = upd.f[t * inner + i];
        v = red == "add" ? v + u : red == "mul" ? v * u : red == "max" ? std::max(v, u) : std::min(v, u);
      } else {
        int64_t& v = r.i[dst + i];
        const int64_t u = upd.i[t * inner + i];
        v = red == "add" ? v + u : red == "mul" ? v * u : red == "max" ? std::max(v, u) : std::min(v, u);
      }
    }
  }
  normalize(r);
  c.set(0, std::move(r));
}

void k_split(OpCtx& c) {
  const Tensor& x = c.t(0);
  const int64_t axis = norm_axis(c.attr_i("axis", 0), x.rank());
  std::vector<int64_t> split = c.has(1) ? to_i64s(c.t(1)) : c.attr_ints("split");
  const int64_t n = static_cast<int64_t>(c.n_out());
  const int64_t d = x.shape[axis];
  if (split.empty()) {
    const int64_t parts = c.has_attr("num_outputs") ? c.attr_i("num_outputs", n) : n;
    // A num_outputs that is not a positive int (a float attribute reads as 0) splits nothing: refused, never divided
    // by.
    if (parts < 1) fail("Split num_outputs must be a positive int, got " + std::to_string(parts));
    const int64_t each = (d + parts - 1) / parts;
    for (int64_t k = 0; k < parts; ++k) split.push_back(std::max<int64_t>(0, std::min(each, d - k * each)));
  }
  int64_t sum = 0;
  for (int64_t s : split) sum += s;
  if (sum != d) fail("Split sizes add up to " + std::to_string(sum) + ", the axis has " + std::to_string(d));
  int64_t outer = 1, inner = 1;
  for (int64_t a = 0; a < axis; ++a) outer *= x.shape[a];
  for (size_t a = axis + 1; a < x.rank(); ++a) inner *= x.shape[a];
  int64_t off = 0;
  for (size_t k = 0; k < split.size(); ++k) {
    Dims od = x.shape;
    od[axis] = split[k];
    Tensor r(x.dt, od);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < split[k] * inner; ++j)
        copy_elem(x, (o * d + off) * inner + j, r, o * split[k] * inner + j);
    off += split[k];
    c.set(k, std::move(r));
  }
}

void k_trilu(OpCtx& c) {
  const Tensor& x = c.t(0);
  if (x.rank() < 2) fail("Trilu needs rank >= 2");
  const int64_t kk = c.has(1) ? c.t(1).geti(0) : 0;
  const bool upper = c.attr_i("upper", 1) != 0;
  Tensor r = x;
  const int64_t R = x.shape[x.rank() - 2], C = x.shape[x.rank() - 1];
  for (int64_t k = 0; k < x.numel(); ++k) {
    const int64_t col = k % C, row = (k / C) % R;
    const bool keep = upper ? col - row >= kk : col - row <= kk;
    if (!keep) {
      if (is_float(r.dt)) r.f[k] = 0;
      else r.i[k] = 0;
    }
  }
  c.set(0, std::move(r));
}

void k_onehot(OpCtx& c) {
  const Tensor& ind = c.t(0);
  const int64_t depth = static_cast<int64_t>(c.t(1).getf(0));
  const Tensor& vals = c.t(2);
  if (vals.numel() != 2) fail("OneHot values must hold 2 elements");
  const int64_t r = static_cast<int64_t>(ind.rank()) + 1;
  const int64_t axis = norm_axis(c.attr_i("axis", -1), r);
  Dims od = ind.shape;
  od.insert(od.begin() + axis, depth);
  Tensor out(vals.dt, od);
  int64_t outer = 1, inner = 1;
  for (int64_t a = 0; a < axis; ++a) outer *= ind.shape[a];
  for (size_t a = axis; a < ind.rank(); ++a) inner *= ind.shape[a];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t d = 0; d < depth; ++d)
      for (int64_t i = 0; i < inner; ++i) {
        int64_t v = static_cast<int64_t>(ind.getf(o * inner + i));
        if (v < 0) v += depth;
        copy_elem(vals, v == d ? 1 : 0, out, (o * depth + d) * inner + i);
      }
  c.set(0, std::move(out));
}

void k_eye_like(OpCtx& c) {
  const Tensor& x = c.t(0);
  if (x.rank() != 2) fail("EyeLike needs rank 2");
  const DT dt = c.has_attr("dtype") ? static_cast<DT>(c.attr_i("dtype", 1)) : x.dt;
  if (!dt_known(static_cast<int>(dt))) fail("EyeLike dtype unknown");
  const int64_t k = c.attr_i("k", 0);
  Tensor r(dt, x.shape);
  for (int64_t i = 0; i < x.shape[0]; ++i) {
    const int64_t j = i + k;
    if (j >= 0 && j < x.shape[1]) {
      if (is_float(dt)) r.f[i * x.shape[1] + j] = 1;
      else r.i[i * x.shape[1] + j] = 1;
    }
  }
  c.set(0, std::move(r));
}

void k_nonzero(OpCtx& c) {
  const Tensor& x = c.t(0);
  std::vector<int64_t> hits;
  for (int64_t k = 0; k < x.numel(); ++k)
    if (is_string(x.dt) ? !x.s[k].empty() : x.getf(k) != 0) hits.push_back(k);
  const int64_t r = static_cast<int64_t>(x.rank());
  Tensor out(DT::I64, {r, static_cast<int64_t>(hits.size())});
  const Dims xs = strides_of(x.shape);
  for (size_t h = 0; h < hits.size(); ++h) {
    int64_t rem = hits[h];
    for (int64_t a = 0; a < r; ++a) {
      out.i[a * hits.size() + h] = rem / xs[a];
      rem %= xs[a];
    }
  }
  c.set(0, std::move(out));
}

void k_compress(OpCtx& c) {
  const Tensor& x = c.t(0);
  const Tensor& cond = c.t(1);
  if (!c.has_attr("axis")) {
    std::vector<int64_t> keep;
    for (int64_t k = 0; k < std::min(cond.numel(), x.numel()); ++k)
      if (cond.getf(k) != 0) keep.push_back(k);
    Tensor r(x.dt, {static_cast<int64_t>(keep.size())});
    for (size_t k = 0; k < keep.size(); ++k) copy_elem(x, keep[k], r, k);
    c.set(0, std::move(r));
    return;
  }
  const int64_t axis = norm_axis(c.attr_i("axis", 0), x.rank());
  std::vector<int64_t> keep;
  for (int64_t k = 0; k < std::min(cond.numel(), x.shape[axis]); ++k)
    if (cond.getf(k) != 0) keep.push_back(k);
  std::vector<Tensor> parts;
  Dims od = x.shape;
  od[axis] = static_cast<int64_t>(keep.size());
  Tensor r(x.dt, od);
  int64_t outer = 1, inner = 1;
  for (int64_t a = 0; a < axis; ++a) outer *= x.shape[a];
  for (size_t a = axis + 1; a < x.rank(); ++a) inner *= x.shape[a];
  for (int64_t o = 0; o < outer; ++o)
    for (size_t j = 0; j < keep.size(); ++j)
      for (int64_t i = 0; i < inner; ++i)
        copy_elem(x, (o * x.shape[axis] + keep[j]) * inner + i, r, (o * keep.size() + j) * inner + i);
  c.set(0, std::move(r));
}

void k_depth_to_space(OpCtx& c) {
  const Tensor& x = c.t(0);
  if (x.rank() != 4) fail("DepthToSpace needs rank 4");
  const int64_t b = c.attr_i("blocksize", 1);
  const int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  if (b <= 0 || C % (b * b)) fail("DepthToSpace blocksize does not divide channels");
  const bool crd = c.attr_s("mode", "DCR") == "CRD";
  Tensor t = crd ? reshape_copy(x, {N, C / (b * b), b, b, H, W}) : reshape_copy(x, {N, b, b, C / (b * b), H, W});
  Tensor y = crd ? transpose(t, {0, 1, 4, 2, 5, 3}) : transpose(t, {0, 3, 4, 1, 5, 2});
  c.set(0, reshape_copy(y, {N, C / (b * b), H * b, W * b}));
}

void k_space_to_depth(OpCtx& c) {
  const Tensor& x = c.t(0);
  if (x.rank() != 4) fail("SpaceToDepth needs rank 4");
  const int64_t b = c.attr_i("blocksize", 1);
  const int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  if (b <= 0 || H % b || W % b) fail("SpaceToDepth blocksize does not divide H and W");
  Tensor t = reshape_copy(x, {N, C, H / b, b, W / b, b});
  Tensor y = transpose(t, {0, 3, 5, 1, 2, 4});
  c.set(0, reshape_copy(y, {N, C * b * b, H / b, W / b}));
}

void k_pad(OpCtx& c) {
  const Tensor& x = c.t(0);
  std::vector<int64_t> pads = c.has(1) ? to_i64s(c.t(1)) : c.attr_ints("pads");
  const std::string mode = c.attr_s("mode", "constant");
  double cv = c.attr_f("value", 0.0f);
  if (c.has(2) && c.t(2).numel() > 0) cv = c.t(2).getf(0);
  const int64_t r = static_cast<int64_t>(x.rank());
  std::vector<int64_t> axes;
  if (c.has(3)) axes = to_i64s(c.t(3));
  else
    for (int64_t a = 0; a < r; ++a) axes.push_back(a);
  if (pads.size() != 2 * axes.size()) fail("Pad pads has the wrong length");
  std::vector<int64_t> lo(r, 0), hi(r, 0);
  for (size_t k = 0; k < axes.size(); ++k) {
    const int64_t a = norm_axis(axes[k], r);
    lo[a] = pads[k];
    hi[a] = pads[k + axes.size()];
  }
  Dims od(r);
  for (int64_t a = 0; a < r; ++a) {
    od[a] = x.shape[a] + lo[a] + hi[a];
    if (od[a] < 0) fail("Pad makes a negative dimension");
  }
  Tensor y(x.dt, od);
  const Dims xs = strides_of(x.shape);
  std::vector<int64_t> ctr(r, 0);
  for (int64_t k = 0; k < y.numel(); ++k) {
    int64_t src = 0;
    bool inside = true;
    for (int64_t a = 0; a < r; ++a) {
      int64_t p = ctr[a] - lo[a];
      const int64_t d = x.shape[a];
      if (p < 0 || p >= d) {
        if (mode == "constant" || d == 0) inside = false;
        else if (mode == "edge") p = p < 0 ? 0 : d - 1;
        else if (mode == "reflect") {
          if (d == 1) p = 0;
          else {
            const int64_t period = 2 * (d - 1);
            p = ((p % period) + period) % period;
            if (p >= d) p = period - p;
          }
        } else if (mode == "wrap") p = ((p % d) + d) % d;
        else throw ExecError(ErrKind::Unsupported, "unsupported op Pad mode '" + mode + "' at " + c.path);
      }
      src += p * xs[a];
    }
    if (inside) copy_elem(x, src, y, k);
    else if (is_float(y.dt)) y.f[k] = round_to(y.dt, cv);
    else if (!is_string(y.dt)) y.i[k] = double_to_int(y.dt, cv);
    for (int64_t a = r - 1; a >= 0; --a) {
      if (++ctr[a] < od[a]) break;
      ctr[a] = 0;
    }
  }
  c.set(0, std::move(y));
}

void k_reverse_sequence(OpCtx& c) {
  const Tensor& x = c.t(0);
  const auto lens = to_i64s(c.t(1));
  const int64_t ba = c.attr_i("batch_axis", 1), ta = c.attr_i("time_axis", 0);
  Tensor y = x;
  const Dims xs = strides_of(x.shape);
  for (int64_t k = 0; k < x.numel(); ++k) {
    const int64_t b = (k / xs[ba]) % x.shape[ba];
    const int64_t t = (k / xs[ta]) % x.shape[ta];
    if (b >= static_cast<int64_t>(lens.size())) fail("ReverseSequence lengths too short");
    if (t < lens[b]) {
      const int64_t src = k + (lens[b] - 1 - 2 * t) * xs[ta];
      copy_elem(x, src, y, k);
    }
  }
  c.set(0, std::move(y));
}

}  // namespace

void register_shape_ops(KernelTable& t) {
  t["Reshape"] = k_reshape;
  t["Flatten"] = k_flatten;
  t["Transpose"] = k_transpose;
  t["Concat"] = k_concat;
  t["Squeeze"] = k_squeeze;
  t["Unsqueeze"] = k_unsqueeze;
  t["Shape"] = k_shape;
  t["Size"] = k_size;
  t["Constant"] = k_constant;
  t["ConstantOfShape"] = k_constant_of_shape;
  t["Range"] = k_range;
  t["Expand"] = k_expand;
  t["Tile"] = k_tile;
  t["Slice"] = k_slice;
  t["Gather"] = k_gather;
  t["GatherElements"] = k_gather_elements;
  t["GatherND"] = k_gather_nd;
  t["ScatterElements"] = k_scatter_elements;
  t["Scatter"] = k_scatter_elements;
  t["ScatterND"] = k_scatter_nd;
  t["Split"] = k_split;
  t["Trilu"] = k_trilu;
  t["OneHot"] = k_onehot;
  t["EyeLike"] = k_eye_like;
  t["NonZero"] = k_nonzero;
  t["Compress"] = k_compress;
  t["DepthToSpace"] = k_depth_to_space;
  t["SpaceToDepth"] = k_space_to_depth;
  t["Pad"] = k_pad;
  t["ReverseSequence"] = k_reverse_sequence;
}

}  // namespace condlint::exec
