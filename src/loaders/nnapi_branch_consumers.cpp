// Android NNAPI: the shape rules of the operations condlint judges per branch after an IF (loaders/branch_follow),
// as the NNAPI documentation (NeuralNetworks.h) states them: ADD, MUL, SUB, DIV and the comparisons broadcast their
// two tensors as numpy does, CONCATENATION joins its tensors along the axis its last (constant) input names, the
// activations keep their input's shape, the reductions take any rank (their output depends on the axes: unknown).
// RESHAPE takes its target from a constant TENSOR_INT32 (one -1), TRANSPOSE its permutation (none: the dims
// reversed); FULLY_CONNECTED takes an input of rank 2 at least whose element count the weights' input_size divides
// (the output is [count / input_size, num_units]); BATCH_MATMUL multiplies two tensors of one rank from 2 to 4 whose
// last two dims (swapped by the constant adj_x, adj_y) fit, and gives the left one's batch dims.
// An operand the document states fully (every dim known) is what the runtime checks the operation's output against,
// so it is taken as stated. Any other operation has no rule here (a gap).
#include <cstdint>
#include <cstring>
#include <optional>
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

// The values of a constant TENSOR_INT32 operand of at most kMaxRank values (CONSTANT_COPY), or nullopt; an omitted
// optional operand (NO_VALUE) is an empty list.
std::optional<std::vector<int64_t>> constant_ints(const NnapiData& nn, const NnSubgraph& sg, uint32_t idx) {
  if (idx >= sg.operands.size()) return std::nullopt;
  const NnOperand& o = sg.operands[idx];
  if (o.lifetime == nn::NO_VALUE) return std::vector<int64_t>{};
  if (o.type != nn::TENSOR_INT32 || o.lifetime != nn::CONSTANT_COPY || o.length % 4 != 0 ||
      o.length > 4 * static_cast<uint64_t>(kMaxRank))
    return std::nullopt;
  if (static_cast<uint64_t>(o.offset) + o.length > nn.operand_values.size()) return std::nullopt;
  std::vector<int64_t> out;
  for (uint32_t k = 0; k < o.length; k += 4) {
    int32_t v = 0;
    std::memcpy(&v, nn.operand_values.data() + o.offset + k, 4);
    out.push_back(v);
  }
  return out;
}

// The value of a constant BOOL scalar operand, or nullopt.
std::optional<bool> constant_bool(const NnapiData& nn, const NnSubgraph& sg, uint32_t idx) {
  if (idx >= sg.operands.size()) return std::nullopt;
  const NnOperand& o = sg.operands[idx];
  if (o.type != nn::BOOL || o.lifetime != nn::CONSTANT_COPY || o.length != 1) return std::nullopt;
  if (static_cast<uint64_t>(o.offset) + 1 > nn.operand_values.size()) return std::nullopt;
  return nn.operand_values[o.offset] != 0;
}

// FULLY_CONNECTED: input (rank 2 or more, flattened to [batch, input_size]), weights [num_units, input_size].
ShapeVerdict fully_connected(const std::vector<Shape>& in, const std::string& x_text, const std::string& w_text) {
  ShapeVerdict v;
  v.kind = ShapeVerdict::Kind::Ok;
  if (in.size() < 2) return ShapeVerdict::unknown();
  const Shape &x = in[0], &w = in[1];
  const std::string verb = "multiply " + x_text + " by the weights " + w_text;
  if (x.rank_known && x.dims.size() < 2)
    return ShapeVerdict::fails("the input has rank " + std::to_string(x.dims.size()) + ", not 2 or more", verb);
  const bool w_ok = w.rank_known && w.dims.size() == 2;
  const Dim units = w_ok ? w.dims[0] : Dim::dynamic();
  Dim batch = Dim::dynamic();
  if (w_ok && w.dims[1].is_static() && w.dims[1].lo > 0 && x.rank_known) {
    if (const auto count = x.element_count()) {
      const auto size = static_cast<uint64_t>(w.dims[1].lo);
      if (*count % size != 0)
        return ShapeVerdict::fails(
            std::to_string(*count) + " input elements do not divide into rows of input_size " + std::to_string(size),
            verb);
      batch = Dim::fixed(static_cast<int64_t>(*count / size));
    }
  }
  v.out.push_back(Shape::of({batch, units}));
  return v;
}

// BATCH_MATMUL: two tensors of one rank (2 to 4); the last two dims of each, swapped by adj_x / adj_y, multiply.
ShapeVerdict batch_matmul(const std::vector<Shape>& in, bool adj_x, bool adj_y, const std::string& a_text,
                          const std::string& b_text) {
  ShapeVerdict v;
  v.kind = ShapeVerdict::Kind::Ok;
  const std::string verb = "multiply " + a_text + " by " + b_text;
  for (size_t i = 0; i < 2 && i < in.size(); ++i)
    if (in[i].rank_known && (in[i].dims.size() < 2 || in[i].dims.size() > 4))
      return ShapeVerdict::fails("rank " + std::to_string(in[i].dims.size()) + " is not from 2 to 4", verb);
  if (in.size() < 2 || !in[0].rank_known || !in[1].rank_known) {
    v.out.push_back(in.size() >= 2 && in[0].rank_known ? Shape::of(std::vector<Dim>(in[0].dims.size(), Dim::dynamic()))
                    : in.size() >= 2 && in[1].rank_known
                        ? Shape::of(std::vector<Dim>(in[1].dims.size(), Dim::dynamic()))
                        : Shape::unknown());
    return v;
  }
  const std::vector<Dim>&a = in[0].dims, &b = in[1].dims;
  if (a.size() != b.size())
    return ShapeVerdict::fails("the ranks " + std::to_string(a.size()) + " and " + std::to_string(b.size()) + " differ",
                               verb);
  const size_t r = a.size();
  const Dim rows = adj_x ? a[r - 1] : a[r - 2], ka = adj_x ? a[r - 2] : a[r - 1];
  const Dim kb = adj_y ? b[r - 1] : b[r - 2], cols = adj_y ? b[r - 2] : b[r - 1];
  if (!ka.intersects(kb))
    return ShapeVerdict::fails("the inner dimensions " + ka.str() + " and " + kb.str() + " differ", verb);
  std::vector<Dim> out = a;
  out[r - 2] = rows;
  out[r - 1] = cols;
  v.out.push_back(Shape::of(std::move(out)));
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
  if (op == "RESHAPE" || op == "TRANSPOSE" || op == "FULLY_CONNECTED" || op == "BATCH_MATMUL") {
    if (in.empty()) return ShapeVerdict::unknown();
    const NnapiData& nn = *m.nnapi;
    const NnSubgraph& sg = nn.subgraphs[static_cast<size_t>(g)];
    const NnOperation& operation = sg.operations[static_cast<size_t>(n)];
    auto operand = [&](size_t i) { return i < operation.inputs.size() ? operation.inputs[i] : UINT32_MAX; };
    if (op == "FULLY_CONNECTED") return fully_connected(in, text(0), text(1));
    if (op == "BATCH_MATMUL") {
      const auto adj_x = operation.inputs.size() > 2 ? constant_bool(nn, sg, operand(2)) : std::optional<bool>(false);
      const auto adj_y = operation.inputs.size() > 3 ? constant_bool(nn, sg, operand(3)) : std::optional<bool>(false);
      if (!adj_x || !adj_y) return ShapeVerdict::unknown();
      return batch_matmul(in, *adj_x, *adj_y, text(0), text(1));
    }
    const auto values = operation.inputs.size() > 1 ? constant_ints(nn, sg, operand(1))
                                                    : std::optional<std::vector<int64_t>>(std::vector<int64_t>{});
    if (!values) return ShapeVerdict::unknown();  // a target computed from data
    if (op == "TRANSPOSE") return shape_rules::transpose(in[0], *values, text(0));
    if (values->empty()) return ShapeVerdict::unknown();
    for (int64_t t : *values)
      if (t == 0) return ShapeVerdict::unknown();  // NNAPI gives 0 no meaning of its own here: nothing claimed
    return shape_rules::reshape(in[0], *values, false, text(0));
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
  // A condition's data sources: the main subgraph's inputs. A referenced subgraph's input is bound to a value
  // outside it: not traced (it may be any source).
  r.read_node = [](int, int) { return ReadLeaf::through(); };
  r.read_input = [&m, &nn](int g, int n, int i) {
    const NnSubgraph& sg = nn.subgraphs[static_cast<size_t>(g)];
    const NnOperation& op = sg.operations[static_cast<size_t>(n)];
    const uint32_t idx = static_cast<size_t>(i) < op.inputs.size() ? op.inputs[static_cast<size_t>(i)] : UINT32_MAX;
    if (idx >= sg.operands.size()) return ReadLeaf::unknown();
    const NnOperand& o = sg.operands[idx];
    if (o.lifetime == nn::NO_VALUE || nn::is_constant(o.lifetime)) return ReadLeaf::constant();
    if (o.lifetime == nn::SUBGRAPH_INPUT && m.graphs[static_cast<size_t>(g)].parent_graph < 0 && g == 0)
      return ReadLeaf::source(o.name.empty() ? "operand " + std::to_string(idx) : "'" + o.name + "'");
    return ReadLeaf::unknown();
  };
  follow_branches(m, r, m.nnapi->branch_follow);
}

}  // namespace condlint
