// Android NNAPI: the shape rules of the operations condlint judges per branch after an IF (loaders/branch_follow),
// as the NNAPI documentation (NeuralNetworks.h) states them: ADD, MUL, SUB, DIV and the comparisons broadcast their
// two tensors as numpy does, CONCATENATION joins its tensors along the axis its last (constant) input names, the
// activations keep their input's shape, the reductions take any rank (their output depends on the axes: unknown).
// An operand the document states fully (every dim known) is what the runtime checks the operation's output against,
// so it is taken as stated. Any other operation has no rule here (a gap).
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "loaders/branch_follow.hpp"
#include "model/nnapi_data.hpp"

namespace condlint {

namespace {

Shape operand_shape(const NnOperand& o) {
  if (nn::is_scalar(o.type)) return Shape::scalar();
  if (o.dimensions.empty() || o.dims_over_limit || o.type == nn::SUBGRAPH || nn::is_extension(o.type))
    return Shape::unknown();
  std::vector<Dim> dims;
  for (uint32_t d : o.dimensions) dims.push_back(d == 0 ? Dim::dynamic() : Dim::fixed(d));
  return Shape::of(std::move(dims));
}

// The value of a constant INT32 scalar operand (CONSTANT_COPY), or nullopt.
std::optional<int64_t> constant_int(const NnapiData& nn, const NnSubgraph& sg, uint32_t idx) {
  if (idx >= sg.operands.size()) return std::nullopt;
  const NnOperand& o = sg.operands[idx];
  if (o.type != nn::INT32 || o.lifetime != nn::CONSTANT_COPY || o.length != 4) return std::nullopt;
  if (static_cast<uint64_t>(o.offset) + 4 > nn.operand_values.size()) return std::nullopt;
  int32_t v = 0;
  std::memcpy(&v, nn.operand_values.data() + o.offset, 4);
  return v;
}

ShapeVerdict nnapi_rule(const Model& m, int g, int n, const std::vector<Shape>& in) {
  static const std::set<std::string, std::less<>> same_shape{
      "RELU",  "RELU1", "RELU6", "LOGISTIC",   "TANH", "EXP",  "LOG",        "ABS",      "NEG",        "SQRT",
      "RSQRT", "SIN",   "FLOOR", "HARD_SWISH", "ELU",  "CAST", "DEQUANTIZE", "QUANTIZE", "LOGICAL_NOT"};
  static const std::set<std::string, std::less<>> broadcasting{
      "ADD",  "MUL",        "SUB",     "DIV",           "MAXIMUM",   "MINIMUM",     "POW",        "EQUAL",
      "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL", "NOT_EQUAL", "LOGICAL_AND", "LOGICAL_OR", "PRELU"};
  static const std::set<std::string, std::less<>> reductions{"REDUCE_SUM", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD",
                                                             "REDUCE_ANY", "REDUCE_ALL", "MEAN"};
  const Node& node = m.node(g, n);
  const std::string op = node.op.str();
  auto text = [&](size_t i) {
    const ElemType e = i < node.inputs.size() ? node.inputs[i].type().elem : ElemType::Unknown;
    return (is_concrete(e) ? std::string(to_string(e)) : std::string()) +
           (i < in.size() ? in[i] : Shape::unknown()).str();
  };
  ShapeVerdict v;
  v.kind = ShapeVerdict::Kind::Ok;
  if (same_shape.count(op)) {
    v.out.push_back(in.empty() ? Shape::unknown() : in[0]);
    return v;
  }
  if (broadcasting.count(op)) return shape_rules::broadcast(in, text(0), text(1));
  if (op == "CONCATENATION" && in.size() >= 2) {
    const NnapiData& nn = *m.nnapi;
    const NnSubgraph& sg = nn.subgraphs[static_cast<size_t>(g)];
    const NnOperation& operation = sg.operations[static_cast<size_t>(n)];
    const auto axis = constant_int(nn, sg, operation.inputs.back());
    if (!axis) return ShapeVerdict::unknown();
    std::vector<Shape> tensors(in.begin(), in.end() - 1);
    std::vector<std::string> texts;
    for (size_t i = 0; i + 1 < in.size(); ++i) texts.push_back(text(i));
    return shape_rules::concat(tensors, *axis, texts);
  }
  if (reductions.count(op)) return ShapeVerdict::unknown();
  v.kind = ShapeVerdict::Kind::NoRule;
  return v;
}

}  // namespace

void follow_nnapi_branches(Model& m) {
  if (!m.nnapi || m.conditionals.empty() || m.nnapi->subgraphs.size() != m.graphs.size()) return;
  const NnapiData& nn = *m.nnapi;
  BranchFollowRules r;
  r.judged_by = "NNAPI's";
  r.infer = [&m](int g, int n, const std::vector<Shape>& in) { return nnapi_rule(m, g, n, in); };
  r.unproduced = [&nn](int g, int n, int i) {
    const NnSubgraph& sg = nn.subgraphs[static_cast<size_t>(g)];
    const NnOperation& op = sg.operations[static_cast<size_t>(n)];
    const uint32_t idx = op.inputs[static_cast<size_t>(i)];
    return idx < sg.operands.size() ? operand_shape(sg.operands[idx]) : Shape::unknown();
  };
  r.stated = [&nn](int g, int n, int k) -> std::optional<Shape> {
    const NnSubgraph& sg = nn.subgraphs[static_cast<size_t>(g)];
    const NnOperation& op = sg.operations[static_cast<size_t>(n)];
    const uint32_t idx = op.outputs[static_cast<size_t>(k)];
    if (idx >= sg.operands.size()) return std::nullopt;
    Shape s = operand_shape(sg.operands[idx]);
    if (!s.is_static()) return std::nullopt;
    return s;
  };
  r.branch_source = [&nn](const ConditionalView& c, int b, int j) -> std::pair<ValueRef, Shape> {
    const int g = c.branch[b].graph;
    if (g < 0 || static_cast<size_t>(g) >= nn.subgraphs.size()) return {ValueRef{}, Shape::unknown()};
    const NnSubgraph& sg = nn.subgraphs[static_cast<size_t>(g)];
    if (j < 0 || static_cast<size_t>(j) >= sg.output_indexes.size()) return {ValueRef{}, Shape::unknown()};
    const uint32_t idx = sg.output_indexes[static_cast<size_t>(j)];
    for (size_t k = 0; k < sg.operations.size(); ++k)
      for (size_t o = 0; o < sg.operations[k].outputs.size(); ++o)
        if (sg.operations[k].outputs[o] == idx)
          return {ValueRef{g, static_cast<int>(k), static_cast<int>(o)}, Shape::unknown()};
    return {ValueRef{}, idx < sg.operands.size() ? operand_shape(sg.operands[idx]) : Shape::unknown()};
  };
  r.where = [&nn](int g, int n) {
    SourceLocation l = nn.subgraphs[static_cast<size_t>(g)].operations[static_cast<size_t>(n)].loc;
    l.graph = g;
    l.node_index = n;
    return l;
  };
  r.elem = [&m](int g, int n, int k, bool input) {
    const Node& node = m.node(g, n);
    const auto& ports = input ? node.inputs : node.outputs;
    const ElemType e =
        static_cast<size_t>(k) < ports.size() ? ports[static_cast<size_t>(k)].type().elem : ElemType::Unknown;
    return is_concrete(e) ? std::string(to_string(e)) : std::string();
  };
  follow_branches(m, r, m.nnapi->branch_follow);
}

}  // namespace condlint
