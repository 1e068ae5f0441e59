// The nodes after an If judged once per branch, for the formats whose loader has no per-node inference of its own
// (OpenVINO IR and NNAPI; ONNX follows with onnx's inference in onnx_branch_consumers). Where an If's branches give
// different shapes for an output, the If output is what both can give (OpenVINO's If-8 rule: equal dims kept, others
// dynamic; an NNAPI IF output operand of unspecified dims), and a consumer judged on that passes. The follower
// infers the shapes of the If's graph with the format's shape rules, then walks the graph once: the nodes that read
// the If's outputs are judged with the shape each branch gives (where several Ifs' values meet at a node, once per
// combination of their branches that inputs can select), and what they compute is passed on to the nodes after them
// until the cases agree with the union again. A node whose rule rejects what a case gives is recorded (one root
// cause, one finding: that case is followed no further); a node of an op the format's table has no rule for stops
// the cases there and is recorded as a gap. Unknown never fails: a rule fails only on shapes that fail for every
// value they allow.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/model.hpp"

namespace condlint {

// What a format's shape rule says of one node.
struct ShapeVerdict {
  enum class Kind {
    Ok,       // it takes its inputs; `out` holds its outputs' shapes (unknown where the rule cannot say)
    Fails,    // it rejects them for every value they allow: `error` says why, `verb` what it cannot do
    Unknown,  // its outputs are not known (an input of unknown rank, a value read from data), nothing fails
    NoRule,   // the table has no rule for the op
    Terminal  // a graph's output (Result): nothing after it in this graph
  } kind = Kind::Unknown;
  std::vector<Shape> out;
  std::string error;
  std::string verb;  // "multiply f32[2] by f32[1,2]"
  static ShapeVerdict unknown() { return {}; }
  static ShapeVerdict fails(std::string why, std::string verb) {
    ShapeVerdict v;
    v.kind = Kind::Fails;
    v.error = std::move(why);
    v.verb = std::move(verb);
    return v;
  }
};

// What the walk from a condition back to the data sources it reads finds at a node or at an input no node produces:
// a value to walk through (its inputs), a constant, a data source (a model input, named as messages name it), or a
// value not traced further (it may be any source).
struct ReadLeaf {
  // Bound: the value is input `input` of node `node` of graph `graph` (a body's Parameter: what its If binds to it).
  enum class Kind { Through, Constant, Source, Unknown, Bound } kind = Kind::Unknown;
  std::string name;  // Source: "'x'"
  int graph = -1, node = -1, input = -1;
  static ReadLeaf through() { return {Kind::Through, {}}; }
  static ReadLeaf constant() { return {Kind::Constant, {}}; }
  static ReadLeaf source(std::string n) { return {Kind::Source, std::move(n)}; }
  static ReadLeaf unknown() { return {}; }
  static ReadLeaf bound(int g, int n, int i) { return {Kind::Bound, {}, g, n, i}; }
};

// The data sources a condition reads: sorted names, and whether it reads a value not traced to them.
struct ConditionReads {
  std::vector<std::string> sources;
  bool unknown = false;
};

struct BranchFollowRules {
  std::string judged_by;  // "OpenVINO's" / "NNAPI's": the rule is named "<judged_by> <op> shape rule"
  // The rule of node n of graph g on its inputs' shapes (unknown rank where not known).
  std::function<ShapeVerdict(int g, int n, const std::vector<Shape>& in)> infer;
  // The shape of input i of node n that no node of the graph produces (an NNAPI subgraph input or constant operand;
  // unknown for an unconnected IR port).
  std::function<Shape(int g, int n, int i)> unproduced;
  // The shape of output k of node n when the file states it with authority (an IR Parameter's or Const's data, an
  // NNAPI operand of fully specified dims, which the runtime checks), else nullopt (then the rule computes it).
  std::function<std::optional<Shape>(int g, int n, int k)> stated;
  // Where output j of branch b of conditional c comes from inside the branch: a node output of the branch graph, or
  // an invalid ref with the shape it has otherwise.
  std::function<std::pair<ValueRef, Shape>(const ConditionalView& c, int b, int j)> branch_source;
  // What flows on from a conditional's output whose branches give the two shapes (null: merge_branches).
  std::function<Shape(const Shape&, const Shape&)> union_of;
  // Where findings about node n stand (null: the node's own position).
  std::function<SourceLocation(int g, int n)> where;
  // "f32" for output k of node n (messages).
  std::function<std::string(int g, int n, int k, bool input)> elem;
  // What the walk from a condition to its data sources finds at a node and at an input no node produces
  // (condition_reads).
  std::function<ReadLeaf(int g, int n)> read_node;
  std::function<ReadLeaf(int g, int n, int i)> read_input;
};

// Nodes the walk from one condition visits (and 16 times as many inputs); past them the condition reads an unknown
// source.
constexpr int kConditionReadsMaxNodes = 256;

// The data sources input `i` of node `n` of graph `g` reads, walking back through the Model's sources (into enclosing
// graphs where a source lies there). `node_leaf(g, n)` says what a node is, `input_leaf(g, n, i)` what an input that
// no node produces is. A node walked through whose inputs read no source (a random op, an op on constants only) is a
// source itself, named by the node: two conditions that read it are not independent.
ConditionReads condition_reads(const Model& m, int g, int n, int i,
                               const std::function<ReadLeaf(int g, int n)>& node_leaf,
                               const std::function<ReadLeaf(int g, int n, int i)>& input_leaf);

// Budgets: nodes judged per If (counted for every If whose branches a node is judged under), cases of branches
// judged at one node (past either, the consumers are judged on the union and C014 notes it), and nesting depth of
// the branch bodies inferred to type an If's outputs.
constexpr int kBranchFollowMaxNodes = 256;
constexpr int kBranchFollowMaxCombinations = 8;
constexpr int kBranchFollowMaxDepth = 8;

// Follows every conditional of `m` whose branches differ; records breaks, gaps and limits in `out`.
void follow_branches(const Model& m, const BranchFollowRules& rules, BranchFollowFacts& out);

// The formats' tables (ir_branch_consumers.cpp, nnapi_branch_consumers.cpp): follow the Ifs of a loaded model and
// record what they find in its IrData / NnapiData.
void follow_ir_branches(Model& m);
void follow_nnapi_branches(Model& m);

// Shape rules the IR and NNAPI tables share (numpy broadcasting, concatenation), in their words.
namespace shape_rules {
// Can dim d hold the value v?
bool can_be(const Dim& d, int64_t v);
// Numpy broadcasting of a and b (unknown when a rank is unknown); fails when two dims can be neither equal nor 1.
ShapeVerdict broadcast(const std::vector<Shape>& in, const std::string& a_text, const std::string& b_text);
// Concatenation along `axis` (negative counts from the end).
ShapeVerdict concat(const std::vector<Shape>& in, int64_t axis, const std::vector<std::string>& texts);
// Reshape of `in` to the constant `target` (one -1: the rest of the elements; 0: with `special_zero` the input's dim
// at that index, else a dim of 0). Fails only when the input's element count is known and the target cannot hold it.
ShapeVerdict reshape(const Shape& in, const std::vector<int64_t>& target, bool special_zero,
                     const std::string& in_text);
// Transpose of `in` by the constant `order` (empty: the dims reversed). Fails when the order's length is not the rank.
ShapeVerdict transpose(const Shape& in, const std::vector<int64_t>& order, const std::string& in_text);
}  // namespace shape_rules

}  // namespace condlint
