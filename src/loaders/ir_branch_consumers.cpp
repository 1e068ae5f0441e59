// OpenVINO IR: the shape rules of the ops condlint judges per branch after an If (loaders/branch_follow), as
// OpenVINO's own shape inference states them: element-wise ops broadcast by their auto_broadcast attribute (numpy
// by default; "none" wants equal shapes), MatMul multiplies the last two dims (transpose_a / transpose_b; a rank-1
// side is a row or a column), Concat joins along its axis, ops that keep their input's shape keep it. Reductions take
// any rank and give a shape that depends on their axes' values: unknown. Reshape and Transpose take their target
// shape or order from a Const (special_zero, one -1; an empty order reverses the dims); where it is computed from data
// their output is unknown. Any other op has no rule here (a gap).
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "loaders/branch_follow.hpp"

namespace condlint {

namespace {

bool attr_true(const Node& n, const char* name) {
  const std::string* v = n.attrs.find(name);
  return v && (*v == "true" || *v == "1" || *v == "True");
}

std::string elem_of(const Model& m, int g, int n, int k, bool input) {
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

// The Consts of an IR model by their layer, built on first use (only a model whose Ifs' branches differ asks).
class ConstValues {
 public:
  explicit ConstValues(const Model& m) : m_(m) {}
  // The integer values of the Const that input i of node n reads (i32 or i64, within the weights and a small size),
  // or nullopt.
  std::optional<std::vector<int64_t>> ints(int g, int n, int i) {
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

 private:
  const Model& m_;
  bool built_ = false;
  std::unordered_map<uint64_t, const IrConst*> by_layer_;
};

ShapeVerdict ir_rule(const Model& m, ConstValues& consts, int g, int n, const std::vector<Shape>& in) {
  static const std::set<std::string, std::less<>> same_shape{
      "Relu",    "Sigmoid", "Tanh",       "Exp",    "Log",      "Abs",  "Negative", "Sqrt", "Clamp",
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
    return elem_of(m, g, n, static_cast<int>(i), true) + (i < in.size() ? in[i] : Shape::unknown()).str();
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
  if (reductions.count(op)) return ShapeVerdict::unknown();
  v.kind = ShapeVerdict::Kind::NoRule;
  return v;
}

}  // namespace

void follow_ir_branches(Model& m) {
  if (!m.ir || m.conditionals.empty()) return;
  BranchFollowRules r;
  r.judged_by = "OpenVINO's";
  auto consts = std::make_shared<ConstValues>(m);
  r.infer = [&m, consts](int g, int n, const std::vector<Shape>& in) { return ir_rule(m, *consts, g, n, in); };
  r.unproduced = [](int, int, int) { return Shape::unknown(); };
  r.stated = [&m](int g, int n, int k) -> std::optional<Shape> {
    const Node& node = m.node(g, n);
    if (node.op != "Parameter" && node.op != "Const") return std::nullopt;
    const Port& p = node.outputs[static_cast<size_t>(k)];
    if (p.attrs_no_dims) return std::nullopt;  // no <dim>: a scalar or a dynamic rank
    return p.shape();
  };
  r.branch_source = [&m](const ConditionalView& c, int b, int j) -> std::pair<ValueRef, Shape> {
    for (const OutputBinding& ob : c.branch[b].outputs) {
      if (ob.output_index != j) continue;
      const int g = c.branch[b].graph, res = ob.value.loc.node_index;
      if (g < 0 || res < 0 || static_cast<size_t>(res) >= m.graphs[static_cast<size_t>(g)].nodes.size()) break;
      const Node& node = m.node(g, res);
      if (node.op != "Result" || node.sources.empty()) break;
      return {node.sources[0], Shape::unknown()};
    }
    return {ValueRef{}, Shape::unknown()};
  };
  r.elem = [&m](int g, int n, int k, bool input) { return elem_of(m, g, n, k, input); };
  // A condition's data sources: the main graph's Parameters. A Parameter of an If's branch is what the If binds to it
  // (one input of the If); one of another body (a Loop's: it changes per iteration), and a ReadValue (the state an
  // Assign left), are not traced (either may be any source).
  auto if_of_graph = std::make_shared<std::unordered_map<int, int>>();  // branch graph -> its conditional
  for (size_t c = 0; c < m.conditionals.size(); ++c)
    for (const BranchView& b : m.conditionals[c].branch)
      if (b.graph >= 0) if_of_graph->emplace(b.graph, static_cast<int>(c));
  r.read_node = [&m, if_of_graph](int g, int n) {
    const Node& node = m.node(g, n);
    if (node.op == "Const") return ReadLeaf::constant();
    if (node.op == "Parameter") {
      if (m.graphs[static_cast<size_t>(g)].parent_graph < 0) return ReadLeaf::source("'" + node.display() + "'");
      const auto c = if_of_graph->find(g);
      if (c == if_of_graph->end()) return ReadLeaf::unknown();
      const ConditionalView& v = m.conditionals[static_cast<size_t>(c->second)];
      int outer = -1, bindings = 0;
      for (const BranchView& b : v.branch)
        if (b.graph == g)
          for (const InputBinding& ib : b.inputs)
            if (ib.inner.loc.graph == g && ib.inner.loc.node_index == n) {
              outer = ib.outer_index;
              ++bindings;
            }
      return bindings == 1 ? ReadLeaf::bound(v.graph, v.node, outer) : ReadLeaf::unknown();
    }
    if (node.op == "ReadValue") return ReadLeaf::unknown();
    return ReadLeaf::through();
  };
  r.read_input = [](int, int, int) { return ReadLeaf::unknown(); };  // an unconnected port
  follow_branches(m, r, m.ir->branch_follow);
}

}  // namespace condlint
