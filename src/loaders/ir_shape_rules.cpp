#include "loaders/ir_shape_rules.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <cstring>
#include <set>
#include <string>
#include <vector>

namespace condlint {

namespace {

bool attr_true(const Node& n, const char* name) {
  const std::string* v = n.attrs.find(name);
  return v && (*v == "true" || *v == "1" || *v == "True");
}

ShapeVerdict matmul(const Node& node, const std::vector<Shape>& in, const std::string& a_text,
                    const std::string& b_text) {
  ShapeVerdict v;
  v.kind = ShapeVerdict::Kind::Ok;
  if (in.size() < 2 || !in[0].rank_known || !in[1].rank_known || in[0].dims.empty() || in[1].dims.empty()) {
    v.out.push_back(Shape::unknown());
    return v;
  }
  std::vector<Dim> a = in[0].dims, b = in[1].dims;
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), Dim::fixed(1));
  else if (attr_true(node, "transpose_a")) std::swap(a[a.size() - 1], a[a.size() - 2]);
  if (b_vec) b.push_back(Dim::fixed(1));
  else if (attr_true(node, "transpose_b")) std::swap(b[b.size() - 1], b[b.size() - 2]);
  const std::string verb = "multiply " + a_text + " by " + b_text;
  const Dim ka = a.back(), kb = b[b.size() - 2];
  if (!ka.intersects(kb))
    return ShapeVerdict::fails("the inner dimensions " + ka.str() + " and " + kb.str() + " differ", verb);
  const Shape batch_a = Shape::of(std::vector<Dim>(a.begin(), a.end() - 2));
  const Shape batch_b = Shape::of(std::vector<Dim>(b.begin(), b.end() - 2));
  ShapeVerdict batch = shape_rules::broadcast({batch_a, batch_b}, a_text, b_text);
  if (batch.kind == ShapeVerdict::Kind::Fails) {
    batch.error = "the batch dimensions cannot broadcast: " + batch.error;
    batch.verb = verb;
    return batch;
  }
  Shape out = batch.out.empty() ? Shape::unknown() : batch.out[0];
  if (out.rank_known) {
    if (!a_vec) out.dims.push_back(a[a.size() - 2]);
    if (!b_vec) out.dims.push_back(b.back());
  }
  v.out.push_back(std::move(out));
  return v;
}


constexpr int64_t kHugeDim = int64_t(1) << 40;  // past it a dim is not computed (no overflow, no claim)

ShapeVerdict ok(Shape s) {
  ShapeVerdict v;
  v.kind = ShapeVerdict::Kind::Ok;
  v.out.push_back(std::move(s));
  return v;
}

// An attribute holding a list of integers ("1,1"), or nullopt when absent or not one.
std::optional<std::vector<int64_t>> int_list_attr(const Node& node, const char* name) {
  const std::string* a = node.attrs.find(name);
  if (!a) return std::nullopt;
  if (a->empty()) return std::vector<int64_t>{};
  return parse_int64_list(*a);
}

// Unsqueeze: a dim of 1 at each constant axis of the output (negative axes count from the output's end).
ShapeVerdict unsqueeze(const Shape& in, const std::vector<int64_t>& axes) {
  if (!in.rank_known) return ShapeVerdict::unknown();
  const auto rank = static_cast<int64_t>(in.dims.size() + axes.size());
  std::vector<bool> inserted(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    if (a < 0) a += rank;
    if (a < 0 || a >= rank || inserted[static_cast<size_t>(a)]) return ShapeVerdict::unknown();
    inserted[static_cast<size_t>(a)] = true;
  }
  std::vector<Dim> dims;
  size_t next = 0;
  for (int64_t k = 0; k < rank; ++k) dims.push_back(inserted[static_cast<size_t>(k)] ? Dim::fixed(1) : in.dims[next++]);
  return ok(Shape::of(std::move(dims)));
}

// Squeeze: the dims at the constant axes removed where they are 1 (without axes, every dim that is 1). Where a dim
// the rule reads is not known, what OpenVINO keeps is not known either: unknown.
ShapeVerdict squeeze(const Shape& in, const std::optional<std::vector<int64_t>>& axes) {
  if (!in.rank_known) return ShapeVerdict::unknown();
  const auto rank = static_cast<int64_t>(in.dims.size());
  std::vector<bool> drop(in.dims.size(), false);
  if (!axes) {
    for (size_t k = 0; k < in.dims.size(); ++k) {
      if (!in.dims[k].is_static()) return ShapeVerdict::unknown();
      drop[k] = in.dims[k].lo == 1;
    }
  } else {
    for (int64_t a : *axes) {
      if (a < 0) a += rank;
      if (a < 0 || a >= rank) return ShapeVerdict::unknown();
      const Dim& d = in.dims[static_cast<size_t>(a)];
      if (!d.is_static() || d.lo != 1) return ShapeVerdict::unknown();
      drop[static_cast<size_t>(a)] = true;
    }
  }
  std::vector<Dim> dims;
  for (size_t k = 0; k < in.dims.size(); ++k)
    if (!drop[k]) dims.push_back(in.dims[k]);
  return ok(Shape::of(std::move(dims)));
}

// Pad: each dim grows by its constant pads_begin and pads_end (negative pads cut); a dim not static stays unknown.
ShapeVerdict pad(const Shape& in, const std::vector<int64_t>& begin, const std::vector<int64_t>& end) {
  if (begin.size() != end.size()) return ShapeVerdict::unknown();
  if (in.rank_known && in.dims.size() != begin.size()) return ShapeVerdict::unknown();
  std::vector<Dim> dims;
  for (size_t k = 0; k < begin.size(); ++k) {
    const Dim d = in.rank_known ? in.dims[k] : Dim::dynamic();
    const int64_t grown = d.is_static() && d.lo < kHugeDim && begin[k] > -kHugeDim && begin[k] < kHugeDim &&
                                  end[k] > -kHugeDim && end[k] < kHugeDim
                              ? d.lo + begin[k] + end[k]
                              : -1;
    dims.push_back(grown >= 0 ? Dim::fixed(grown) : Dim::dynamic());
  }
  return ok(Shape::of(std::move(dims)));
}

// One spatial dim of a convolution: input d, kernel k (after dilation), stride s, explicit pads, or auto_pad.
Dim conv_dim(const Dim& d, const Dim& k, int64_t stride, int64_t dilation, int64_t pb, int64_t pe,
             const std::string& auto_pad) {
  // Every factor below 2^20 or 2^40 as below, so that no product or sum overflows (past them nothing is claimed).
  constexpr int64_t kSmall = int64_t(1) << 20;
  if (!d.is_static() || !k.is_static() || stride <= 0 || dilation <= 0 || d.lo >= kHugeDim || k.lo >= kSmall ||
      dilation >= kSmall || stride >= kHugeDim || pb <= -kHugeDim || pb >= kHugeDim || pe <= -kHugeDim || pe >= kHugeDim)
    return Dim::dynamic();
  if (auto_pad == "same_upper" || auto_pad == "same_lower") return Dim::fixed((d.lo + stride - 1) / stride);
  if (auto_pad != "explicit" && auto_pad != "notset" && auto_pad != "valid") return Dim::dynamic();
  const int64_t span = (k.lo - 1) * dilation + 1;
  const int64_t padded = auto_pad == "valid" ? d.lo : d.lo + pb + pe;
  if (padded < span) return Dim::dynamic();  // OpenVINO rejects it; said by no rule here
  return Dim::fixed((padded - span) / stride + 1);
}

// Convolution (weights [O, C, k...]) and GroupConvolution (weights [G, O/G, C/G, k...]): [N, O, spatial...]; the
// input's channels must be what the weights read, where both are known.
ShapeVerdict convolution(const Node& node, const std::vector<Shape>& in, bool grouped, const std::string& x_text,
                         const std::string& w_text) {
  if (in.size() < 2 || !in[0].rank_known || !in[1].rank_known) return ShapeVerdict::unknown();
  const Shape& x = in[0];
  const Shape& w = in[1];
  const size_t head = grouped ? 3 : 2;  // the weights' dims before the kernel's
  if (x.dims.size() < 3 || w.dims.size() != x.dims.size() + (grouped ? 1 : 0)) return ShapeVerdict::unknown();
  const size_t spatial = x.dims.size() - 2;
  Dim out_c = grouped ? Dim::dynamic() : w.dims[0];
  Dim in_c = w.dims[1];
  if (grouped) {
    const Dim g = w.dims[0], o = w.dims[1], c = w.dims[2];
    // The product of two static dims, where it stays below 2^40 (else not claimed).
    auto times = [](const Dim& a, const Dim& b) {
      return a.is_static() && b.is_static() && (a.lo == 0 || b.lo < kHugeDim / a.lo) ? Dim::fixed(a.lo * b.lo)
                                                                                     : Dim::dynamic();
    };
    out_c = times(g, o);
    in_c = times(g, c);
  }
  if (!x.dims[1].intersects(in_c))
    return ShapeVerdict::fails("the input has " + x.dims[1].str() + " channels, the weights read " + in_c.str(),
                               "convolve " + x_text + " with " + w_text);
  const auto strides = int_list_attr(node, "strides"), dilations = int_list_attr(node, "dilations");
  const auto pb = int_list_attr(node, "pads_begin"), pe = int_list_attr(node, "pads_end");
  const std::string* ap = node.attrs.find("auto_pad");
  const std::string auto_pad = ap ? *ap : "explicit";
  auto at = [&](const std::optional<std::vector<int64_t>>& v, size_t k, int64_t def) {
    return v && k < v->size() ? (*v)[k] : def;
  };
  std::vector<Dim> dims{x.dims[0], out_c};
  const bool attrs_ok = strides && strides->size() == spatial && (!dilations || dilations->size() == spatial);
  for (size_t k = 0; k < spatial; ++k)
    dims.push_back(attrs_ok ? conv_dim(x.dims[2 + k], w.dims[head + k], at(strides, k, 1), at(dilations, k, 1),
                                       at(pb, k, 0), at(pe, k, 0), auto_pad)
                            : Dim::dynamic());
  return ok(Shape::of(std::move(dims)));
}

// The length of one static dim d sliced from start to stop by step (both clamped into the dim, as Python slices are).
int64_t slice_length(int64_t d, int64_t start, int64_t stop, int64_t step) {
  if (step > 0) {
    start = start < 0 ? std::max<int64_t>(0, start + d) : std::min(start, d);
    stop = stop < 0 ? std::max<int64_t>(0, stop + d) : std::min(stop, d);
    // ceil((stop - start) / step) without overflow: the span is below the dim, the step any positive int64.
    return stop > start ? (stop - start - 1) / step + 1 : 0;
  }
  start = start < 0 ? std::max<int64_t>(-1, start + d) : std::min(start, d - 1);
  stop = stop < 0 ? std::max<int64_t>(-1, stop + d) : std::min(stop, d - 1);
  // step < 0 and not INT64_MIN (the caller refuses it): -step is an int64.
  return start > stop ? (start - stop - 1) / (-step) + 1 : 0;
}

// Slice-8 with constant start, stop, step and axes (default 0, 1, ...): each sliced static dim its new length, a
// sliced dim not static unknown, the others kept.
ShapeVerdict slice(const Shape& in, const std::vector<int64_t>& start, const std::vector<int64_t>& stop,
                   const std::vector<int64_t>& step, const std::optional<std::vector<int64_t>>& axes_in) {
  if (!in.rank_known || start.size() != stop.size() || start.size() != step.size()) return ShapeVerdict::unknown();
  std::vector<int64_t> axes;
  if (axes_in) axes = *axes_in;
  else
    for (size_t k = 0; k < start.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  if (axes.size() != start.size()) return ShapeVerdict::unknown();
  const auto rank = static_cast<int64_t>(in.dims.size());
  std::vector<Dim> dims = in.dims;
  std::vector<bool> seen(in.dims.size(), false);
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t a = axes[k];
    if (a < 0) a += rank;
    if (a < 0 || a >= rank || seen[static_cast<size_t>(a)] || step[k] == 0 ||
        step[k] == std::numeric_limits<int64_t>::min())
      return ShapeVerdict::unknown();
    seen[static_cast<size_t>(a)] = true;
    Dim& d = dims[static_cast<size_t>(a)];
    d = d.is_static() && d.lo < kHugeDim ? Dim::fixed(slice_length(d.lo, start[k], stop[k], step[k])) : Dim::dynamic();
  }
  return ok(Shape::of(std::move(dims)));
}

// Gather-8 with a constant axis: data[:axis] + indices[batch_dims:] + data[axis+1:].
ShapeVerdict gather(const Node& node, const std::vector<Shape>& in, int64_t axis) {
  if (in.size() < 2 || !in[0].rank_known || !in[1].rank_known) return ShapeVerdict::unknown();
  const auto rank = static_cast<int64_t>(in[0].dims.size()), irank = static_cast<int64_t>(in[1].dims.size());
  int64_t bd = 0;
  if (const std::string* b = node.attrs.find("batch_dims"); b && !parse_int64(*b, bd)) return ShapeVerdict::unknown();
  if (axis < 0) axis += rank;
  if (bd < 0) bd += irank;
  if (axis < 0 || axis >= rank || bd < 0 || bd > irank || bd > axis) return ShapeVerdict::unknown();
  std::vector<Dim> dims(in[0].dims.begin(), in[0].dims.begin() + axis);
  dims.insert(dims.end(), in[1].dims.begin() + bd, in[1].dims.end());
  dims.insert(dims.end(), in[0].dims.begin() + axis + 1, in[0].dims.end());
  return ok(Shape::of(std::move(dims)));
}

// A reduction over constant axes: each reduced dim 1 (keep_dims) or removed.
ShapeVerdict reduction(const Node& node, const Shape& in, const std::vector<int64_t>& axes) {
  if (!in.rank_known) return ShapeVerdict::unknown();
  const auto rank = static_cast<int64_t>(in.dims.size());
  std::vector<bool> reduced(in.dims.size(), false);
  for (int64_t a : axes) {
    if (a < 0) a += rank;
    if (a < 0 || a >= rank) return ShapeVerdict::unknown();
    reduced[static_cast<size_t>(a)] = true;
  }
  const bool keep = attr_true(node, "keep_dims");
  std::vector<Dim> dims;
  for (size_t k = 0; k < in.dims.size(); ++k)
    if (!reduced[k]) dims.push_back(in.dims[k]);
    else if (keep) dims.push_back(Dim::fixed(1));
  return ok(Shape::of(std::move(dims)));
}

// Broadcast-3 to a target shape (values known or not, its length known): numpy and explicit give the target,
// bidirectional the numpy broadcast of the data and the target.
ShapeVerdict broadcast_to(const Node& node, const Shape& data, const std::vector<std::optional<int64_t>>& target,
                          const std::string& data_text) {
  std::vector<Dim> dims;
  for (const auto& t : target)
    dims.push_back(t && *t >= 0 && *t < kHugeDim ? Dim::fixed(*t) : Dim::dynamic());
  const std::string* mode = node.attrs.find("mode");
  if (!mode || *mode == "numpy" || *mode == "explicit") return ok(Shape::of(std::move(dims)));
  if (*mode != "bidirectional") return ShapeVerdict::unknown();
  return shape_rules::broadcast({data, Shape::of(std::move(dims))}, data_text, "the target shape");
}

// LSTMSequence-5, GRUSequence-5, RNNSequence-5: X [batch, seq, input] gives Y [batch, dirs, seq, hidden] and each
// final state [batch, dirs, hidden] (hidden_size; dirs 2 when bidirectional, else 1).
ShapeVerdict sequence_rnn(const Node& node, const std::vector<Shape>& in, size_t outputs) {
  int64_t hidden = 0;
  const std::string* h = node.attrs.find("hidden_size");
  const std::string* dir = node.attrs.find("direction");
  if (!h || !parse_int64(*h, hidden) || hidden <= 0 || hidden >= kHugeDim || in.empty() || !in[0].rank_known ||
      in[0].dims.size() != 3)
    return ShapeVerdict::unknown();
  const Dim dirs = Dim::fixed(dir && *dir == "bidirectional" ? 2 : 1);
  const Dim batch = in[0].dims[0], seq = in[0].dims[1];
  ShapeVerdict v;
  v.kind = ShapeVerdict::Kind::Ok;
  v.out.push_back(Shape::of({batch, dirs, seq, Dim::fixed(hidden)}));
  for (size_t k = 1; k < outputs; ++k) v.out.push_back(Shape::of({batch, dirs, Dim::fixed(hidden)}));
  return v;
}

}  // namespace

std::string ir_elem_of(const Model& m, int g, int n, int k, bool input) {
  const Node& node = m.node(g, n);
  const Port* p = nullptr;
  if (input) {
    if (static_cast<size_t>(k) >= node.inputs.size()) return "";
    p = &node.inputs[static_cast<size_t>(k)];
    const ValueRef src =
        static_cast<size_t>(k) < node.sources.size() ? node.sources[static_cast<size_t>(k)] : ValueRef{};
    if (src.valid()) {
      const Node& from = m.node(src.graph, src.node);
      if (static_cast<size_t>(src.output) < from.outputs.size()) p = &from.outputs[static_cast<size_t>(src.output)];
    }
  } else {
    if (static_cast<size_t>(k) >= node.outputs.size()) return "";
    p = &node.outputs[static_cast<size_t>(k)];
  }
  const ElemType e = p->type().elem;
  return is_concrete(e) ? std::string(to_string(e)) : std::string();
}

std::optional<std::vector<int64_t>> IrConstInts::const_ints(int g, int n, int i) {
  const Node& node = m_.node(g, n);
  if (static_cast<size_t>(i) >= node.sources.size() || !node.sources[static_cast<size_t>(i)].valid()) return {};
  const ValueRef src = node.sources[static_cast<size_t>(i)];
  if (!built_) {
    for (const IrConst& c : m_.ir->consts)
      by_layer_.emplace(uint64_t(uint32_t(c.graph)) << 32 | uint32_t(c.node), &c);
    built_ = true;
  }
  const auto it = by_layer_.find(uint64_t(uint32_t(src.graph)) << 32 | uint32_t(src.node));
  if (it == by_layer_.end()) return {};
  const IrConst& c = *it->second;
  if (c.shape && c.shape->is_static() && c.shape->element_count() == 0u) return std::vector<int64_t>{};
  const int width = c.elem == ElemType::I64 ? 8 : c.elem == ElemType::I32 ? 4 : 0;
  if (!width || !c.offset || !c.size || *c.offset < 0 || *c.size <= 0 || *c.size > 8 * kMaxRank ||
      *c.size % width != 0)
    return {};
  const auto bytes = m_.ir->weight_bytes(*c.offset, static_cast<uint64_t>(*c.size));
  if (!bytes) return {};
  std::vector<int64_t> out;
  for (int64_t k = 0; k < *c.size; k += width) {
    if (width == 8) {
      int64_t v;
      std::memcpy(&v, bytes->data() + k, 8);
      out.push_back(v);
    } else {
      int32_t v;
      std::memcpy(&v, bytes->data() + k, 4);
      out.push_back(v);
    }
  }
  return out;
}


std::optional<std::vector<int64_t>> IrConstInts::ints(int g, int n, int i) {
  if (auto c = const_ints(g, n, i)) return c;
  const Partial p = partial(g, n, i);
  if (!p) return std::nullopt;
  std::vector<int64_t> out;
  for (const auto& e : *p) {
    if (!e) return std::nullopt;
    out.push_back(*e);
  }
  return out;
}

IrConstInts::Partial IrConstInts::partial(int g, int n, int i) {
  if (auto c = const_ints(g, n, i)) return Partial(std::vector<std::optional<int64_t>>(c->begin(), c->end()));
  const Node& node = m_.node(g, n);
  if (!values_ || static_cast<size_t>(i) >= node.sources.size() || !node.sources[static_cast<size_t>(i)].valid())
    return std::nullopt;
  return values_(node.sources[static_cast<size_t>(i)]);
}

ShapeVerdict ir_shape_rule(const Model& m, IrConstInts& consts, int g, int n, const std::vector<Shape>& in) {
  static const std::set<std::string, std::less<>> same_shape{
      "Relu",    "ReLU",    "Identity", "HardSigmoid", "Sigmoid", "Tanh",       "Exp",    "Log",      "Abs",  "Negative", "Sqrt", "Clamp",
      "Elu",     "Gelu",    "Swish",      "HSwish", "HSigmoid", "Mish", "SoftPlus", "Erf",  "Floor",
      "Ceiling", "Convert", "LogicalNot", "Sign",   "Round",    "Sin",  "Cos",      "Exp",  "SoftSign"};
  static const std::set<std::string, std::less<>> elementwise{
      "Add",       "Subtract",   "Multiply",         "Divide", "Maximum",   "Minimum", "Power",        "Mod",
      "FloorMod",  "Equal",      "NotEqual",         "Less",   "LessEqual", "Greater", "GreaterEqual", "LogicalAnd",
      "LogicalOr", "LogicalXor", "SquaredDifference"};
  static const std::set<std::string, std::less<>> reductions{"ReduceSum", "ReduceMean",       "ReduceMax",
                                                             "ReduceMin", "ReduceProd",       "ReduceL1",
                                                             "ReduceL2",  "ReduceLogicalAnd", "ReduceLogicalOr"};
  const Node& node = m.node(g, n);
  const std::string op = node.op.str();
  auto text = [&](size_t i) {
    return ir_elem_of(m, g, n, static_cast<int>(i), true) + (i < in.size() ? in[i] : Shape::unknown()).str();
  };
  ShapeVerdict v;
  v.kind = ShapeVerdict::Kind::Ok;
  if (op == "Result") {
    v.kind = ShapeVerdict::Kind::Terminal;
    return v;
  }
  if (same_shape.count(op)) {
    v.out.push_back(in.empty() ? Shape::unknown() : in[0]);
    return v;
  }
  if (op == "SoftMax" || op == "LogSoftmax") {
    const std::string* a = node.attrs.find("axis");
    int64_t axis = 1;
    if (a && !parse_int64(*a, axis)) return ShapeVerdict::unknown();
    if (!in.empty() && in[0].rank_known) {
      const auto rank = static_cast<int64_t>(in[0].dims.size());
      if (axis < -rank || axis >= rank)
        return ShapeVerdict::fails("axis " + std::to_string(axis) + " is outside rank " + std::to_string(rank),
                                   "take " + text(0));
    }
    v.out.push_back(in.empty() ? Shape::unknown() : in[0]);
    return v;
  }
  if (elementwise.count(op)) {
    const std::string* mode = node.attrs.find("auto_broadcast");
    if (!mode || *mode == "numpy") return shape_rules::broadcast(in, text(0), text(1));
    if (*mode != "none" || in.size() < 2) return ShapeVerdict::unknown();
    if (in[0].rank_known && in[1].rank_known) {
      bool equal = in[0].dims.size() == in[1].dims.size();
      for (size_t k = 0; equal && k < in[0].dims.size(); ++k) equal = in[0].dims[k].intersects(in[1].dims[k]);
      if (!equal)
        return ShapeVerdict::fails("auto_broadcast=\"none\" wants equal shapes",
                                   "take " + text(0) + " with " + text(1));
    }
    v.out.push_back(in[0].rank_known ? in[0] : in[1]);
    return v;
  }
  if (op == "MatMul") return matmul(node, in, text(0), text(1));
  if (op == "Concat") {
    const std::string* a = node.attrs.find("axis");
    int64_t axis = 0;
    if (!a || !parse_int64(*a, axis)) return ShapeVerdict::unknown();
    std::vector<std::string> texts;
    for (size_t i = 0; i < in.size(); ++i) texts.push_back(text(i));
    return shape_rules::concat(in, axis, texts);
  }
  if (op == "ShapeOf") {
    v.out.push_back(Shape::of(
        {in.empty() || !in[0].rank_known ? Dim::dynamic() : Dim::fixed(static_cast<int64_t>(in[0].dims.size()))}));
    return v;
  }
  if (op == "Reshape" || op == "Transpose") {
    const auto values = consts.ints(g, n, 1);
    if (!values || in.empty()) return ShapeVerdict::unknown();  // a target computed from data
    if (op == "Transpose") return shape_rules::transpose(in[0], *values, text(0));
    return shape_rules::reshape(in[0], *values, attr_true(node, "special_zero"), text(0));
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    if (in.empty()) return ShapeVerdict::unknown();
    if (op == "Squeeze" && node.sources.size() < 2) return squeeze(in[0], std::nullopt);
    const auto axes = consts.ints(g, n, 1);
    if (!axes) return ShapeVerdict::unknown();  // axes computed from data
    return op == "Unsqueeze" ? unsqueeze(in[0], *axes) : squeeze(in[0], axes);
  }
  if (op == "Pad") {
    const auto b = consts.ints(g, n, 1), e = consts.ints(g, n, 2);
    if (!b || !e || in.empty()) return ShapeVerdict::unknown();
    return pad(in[0], *b, *e);
  }
  if (op == "Slice") {
    const auto b = consts.ints(g, n, 1), e = consts.ints(g, n, 2), st = consts.ints(g, n, 3);
    if (!b || !e || !st || in.empty()) return ShapeVerdict::unknown();
    std::optional<std::vector<int64_t>> axes;
    if (node.sources.size() >= 5) {
      axes = consts.ints(g, n, 4);
      if (!axes) return ShapeVerdict::unknown();
    }
    return slice(in[0], *b, *e, *st, axes);
  }
  if (op == "Broadcast") {
    const auto target = consts.partial(g, n, 1);
    if (!target || in.empty()) return ShapeVerdict::unknown();
    return broadcast_to(node, in[0], *target, text(0));
  }
  if (op == "LSTMSequence" || op == "GRUSequence" || op == "RNNSequence")
    return sequence_rnn(node, in, node.outputs.size());
  if (op == "Convolution" || op == "GroupConvolution")
    return convolution(node, in, op == "GroupConvolution", text(0), text(1));
  if (reductions.count(op)) {
    const auto axes = consts.ints(g, n, 1);
    if (!axes || in.empty()) return ShapeVerdict::unknown();  // axes computed from data
    return reduction(node, in[0], *axes);
  }
  if (op == "Gather") {
    const auto axis = consts.ints(g, n, 2);
    if (!axis || axis->size() != 1) return ShapeVerdict::unknown();
    return gather(node, in, (*axis)[0]);
  }
  v.kind = ShapeVerdict::Kind::NoRule;
  return v;
}


}  // namespace condlint
