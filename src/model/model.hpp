// The unified in-memory model: graphs of nodes, with a source location on every element,
// and the Conditional view that gives every If the same face in all formats.
#pragma once

#include <climits>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/name.hpp"
#include "model/types.hpp"

namespace condlint {
namespace io {
class MappedFile;
}  // namespace io

enum class Format { IR, ONNX, NNAPI, TFLITE };
std::string_view to_string(Format f);

// Where a model element stands in its file. Trivially copyable and 24 bytes: every node and port carries one.
// The file name and the logical node path are added only when a finding is reported (ReportedLocation).
struct Position {
  int line = 0;         // 1-based; 0 = unknown
  int column = 0;       // 1-based; 0 = unknown
  int64_t offset = -1;  // byte offset in the file; -1 = unknown
  int graph = -1;       // the graph the element belongs to
  int node_index = -1;  // the node within that graph (-1: the graph itself)
};

// A Position with the element's JSON pointer (NNAPI): what graphs, views, problems and findings carry. Nodes and
// ports keep only their Position; an NNAPI rule that reports at an operation or operand takes its location from
// NnapiData, which keeps the pointers.
struct SourceLocation : Position {
  SourceLocation() = default;
  SourceLocation(const Position& p) : Position(p) {}  // NOLINT: implicit on purpose (a position, no pointer)
  std::string pointer;                                // JSON pointer (NNAPI), empty when not applicable
};

// A location as findings carry it: the file and the logical path (main/if_3/then/Add_7) filled in.
struct ReportedLocation : SourceLocation {
  ReportedLocation() = default;
  ReportedLocation(const SourceLocation& l) : SourceLocation(l) {}  // NOLINT: implicit on purpose
  std::string file;                                                 // path as given on the command line
  std::string node;  // logical path, computed from graph/node_index by Model::path_of
  // The column counted in code points (SARIF's columnKind) where `column` counts bytes; 0 when not computed
  // (compute_code_point_columns, report/report.hpp).
  int code_point_column = 0;
};

// Where a node input reads from: a node output in this graph or in an enclosing one.
struct ValueRef {
  int graph = -1;
  int node = -1;
  int output = -1;
  bool valid() const { return graph >= 0 && node >= 0 && output >= 0; }
};

struct Node;

// 48 bytes: a model has millions of ports.
class Port {
 public:
  Name id;  // the format's own id (IR port id, ONNX value name, NNAPI operand index)

  // Where the port stands in the file: its own line, column and offset, when the format gives it one (IR, NNAPI),
  // else its node's; its graph and node are those of `owner`, the node it belongs to.
  Position loc(const Node& owner) const;
  void set_loc(const Position& p) {
    line_ = p.line;
    column_ = p.column;
    offset_ = p.offset >= 0 && p.offset <= INT32_MAX ? static_cast<int32_t>(p.offset) : -1;  // files are < 2 GiB
  }

  // The declared type (Kind::Unknown when the file does not state it) and shape (rank_known = false when not
  // stated). Ports share one ValueType per distinct pair (a loader interns them: ValueTypeTable).
  const TypeDesc& type() const { return vt_ ? vt_->type : ValueType::unknown().type; }
  const Shape& shape() const { return vt_ ? vt_->shape : ValueType::unknown().shape; }
  void set_type(ValueTypeRef t) { vt_ = std::move(t); }

 private:
  ValueTypeRef vt_;  // null: nothing stated
  int32_t line_ = 0, column_ = 0, offset_ = -1;

 public:
  bool attrs_no_dims = false;  // IR: the port lists no <dim>: a scalar, or a dynamic rank as
                               // OpenVINO's serializer writes it
};

// A list most nodes leave empty (an IR layer's attributes, a node's subgraphs): 8 bytes in the node, the elements
// on the heap when there are any.
template <class T>
class RareList {
 public:
  RareList() = default;
  RareList(const RareList& o) : v_(o.v_ ? std::make_unique<std::vector<T>>(*o.v_) : nullptr) {}
  RareList(RareList&&) noexcept = default;
  RareList& operator=(const RareList& o) {
    if (this != &o) v_ = o.v_ ? std::make_unique<std::vector<T>>(*o.v_) : nullptr;
    return *this;
  }
  RareList& operator=(RareList&&) noexcept = default;
  size_t size() const { return v_ ? v_->size() : 0; }
  bool empty() const { return !v_ || v_->empty(); }
  const T* begin() const { return v_ ? v_->data() : nullptr; }
  const T* end() const { return v_ ? v_->data() + v_->size() : nullptr; }
  T* begin() { return v_ ? v_->data() : nullptr; }
  T* end() { return v_ ? v_->data() + v_->size() : nullptr; }
  const T& operator[](size_t i) const { return (*v_)[i]; }
  T& operator[](size_t i) { return (*v_)[i]; }
  const T& back() const { return v_->back(); }
  template <class... A>
  T& emplace_back(A&&... a) {
    return vec().emplace_back(std::forward<A>(a)...);
  }
  std::vector<T>& vec() {  // the elements as a vector (made when there is none)
    if (!v_) v_ = std::make_unique<std::vector<T>>();
    return *v_;
  }

 private:
  std::unique_ptr<std::vector<T>> v_;
};

// A layer's <data> attributes (IR; empty for the other formats): sorted by name, one entry per name.
class Attributes {
 public:
  using Entry = std::pair<std::string, std::string>;
  // The value of `name`, or null.
  const std::string* find(std::string_view name) const;
  // Sets name = value; a name given twice keeps the last value (as a map would).
  void set(std::string name, std::string value);
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  const Entry* begin() const { return items_.begin(); }
  const Entry* end() const { return items_.end(); }

 private:
  RareList<Entry> items_;
};

// A short text that many nodes repeat (an opset, a domain), in 16 bytes; a loader gives equal values one copy
// (TextTable).
class SharedText {
 public:
  SharedText() = default;
  explicit SharedText(std::shared_ptr<const std::string> s) : s_(std::move(s)) {}
  const std::string& str() const;
  bool empty() const { return !s_ || s_->empty(); }

 private:
  std::shared_ptr<const std::string> s_;
};

class TextTable {
 public:
  SharedText get(std::string_view s);

 private:
  std::unordered_map<std::string_view, std::shared_ptr<const std::string>> by_text_;  // keys view the values
};

// 176 bytes: a model may have millions of nodes.
struct Node {
  Name id;  // format id (IR layer id)
  Name name;
  Name op;             // "If", "Add", "Parameter", ...
  SharedText version;  // IR opset ("opset8"), ONNX domain ("ai.onnx")
  std::vector<Port> inputs;
  std::vector<Port> outputs;
  std::vector<ValueRef> sources;  // one per input; invalid when unconnected
  Attributes attrs;
  RareList<std::pair<std::string, int>> bodies;  // role ("then", "else", "body") -> graph index
  Position loc;
  std::string display() const { return name.empty() ? "layer" + id : name.str(); }
};

inline Position Port::loc(const Node& owner) const {
  Position p = owner.loc;
  if (line_ > 0 || offset_ >= 0) {
    p.line = line_;
    p.column = column_;
    p.offset = offset_;
  }
  return p;
}

struct Graph {
  int parent_graph = -1;
  int parent_node = -1;
  // One spelling in every format, the executors' and `--pin`'s: the root "main"; an If's branches "then" and
  // "else"; a loop's "body" (NNAPI WHILE: "cond" and "body"); any other graph attribute by its name.
  std::string role;
  // A root whose paths start at its role rather than at `main`: an ONNX model-local function's body (role
  // "function:DOMAIN.NAME"), which no call site owns (its Ifs are linted once, for every call).
  bool own_root = false;
  int depth = 0;  // nesting depth, main (and a function's body) = 0
  std::vector<Node> nodes;
  SourceLocation loc;
};

// ----- The Conditional view -----

// A value as seen at a boundary of the conditional: its type, shape and where it is stated.
struct ValueDesc {
  bool present = false;
  TypeDesc type;
  Shape shape;
  std::string label;                    // human name: "Parameter 'x'", "Result 'out'", "input 1"
  bool scalar_or_dynamic_rank = false;  // IR port without <dim>: scalar for the condition, but
                                        // not comparable as a shape (may be a dynamic rank)
  SourceLocation loc;
  // The shape to compare with others: unknown rank when the file left it ambiguous.
  Shape comparable_shape() const { return scalar_or_dynamic_rank ? Shape::unknown() : shape; }
};

struct InputBinding {
  int outer_index = -1;  // index among the conditional's inputs (IR: If input; NNAPI: operand pos)
  ValueDesc outer;       // the outer value bound in
  ValueDesc inner;       // the branch parameter it is bound to
  SourceLocation loc;    // the binding itself (port-map entry)
};

struct OutputBinding {
  int output_index = -1;  // index among the conditional's outputs (after IR renumbering)
  ValueDesc value;        // what the branch produces
  SourceLocation loc;     // the binding itself
};

struct BranchView {
  std::string name;  // "then" / "else"
  int graph = -1;    // -1 when the branch is missing
  std::vector<InputBinding> inputs;
  std::vector<OutputBinding> outputs;  // sorted by output_index
};

// What a conditional's condition is computed from, as the loader traced it statically (ONNX today).
struct ConditionProvenance {
  bool traced = false;              // false: nothing is known of it
  std::string text;                 // "dim 1 of 'conv_out' == 1", "rank('h') != 3", "'sr' == 16000"
  bool on_shapes = false;           // reads the shape or rank of some value
  bool on_values = false;           // reads the value of some input or computed value (not only constants)
  std::vector<std::string> tested;  // the values whose shape (on_shapes) or value the condition reads
  // -1: depends on what the inputs are; 0 / 1: the condition is false / true for every input the declared types
  // allow (the other branch is dead), proven from constants and shapes condlint's sound inference knows.
  int decided = -1;
  std::string decided_why;  // "dim 1 of 'conv_out' is 128"
  // The known scalars the condition compares or combines with ("== 16000" gives 16000): where a search for inputs
  // that select the other branch starts (exec/synthesize).
  std::vector<double> constants;
};

struct ConditionalView {
  int graph = -1;
  int node = -1;
  std::string name;  // display name
  SourceLocation loc;
  bool has_condition = false;
  ValueDesc condition;
  ConditionProvenance provenance;
  std::vector<ValueDesc> outputs;  // the conditional's declared outputs
  BranchView branch[2];            // 0 = then, 1 = else
};

// A consumer that fails under one branch of an If (or one combination of branches of several Ifs) where the union
// of the branches lets it pass (rule C014 decides how bad it is). The loaders follow each branch's shapes into the
// nodes after the If: ONNX with onnx's per-node inference (OnnxData::branch_breaks), IR and NNAPI with condlint's
// shape rules of their ops (BranchFollowFacts, loaders/branch_follow).
struct BranchBreak {
  // One If's branch that selects the failing case, with the output the path starts from and its type there.
  struct Pick {
    int conditional = -1;  // index in Model::conditionals
    int branch = 0;        // 0 = then, 1 = else
    int output = 0;        // the If output the path leaves by
    std::string type;      // what that output is under the branch ("f32[2]")
    std::string other;     // what the other branch gives there ("f32[2,1]"; "" when unknown)
    // The condition reads values whose types differ between the branches of the other picks' Ifs, and those do not
    // decide it: that its values can select the branch together with theirs is not known.
    bool dependent = false;
    // The data sources the condition reads ("'x'": the model's inputs, and values no input computes such as a
    // random op's), sorted; `reads_unknown`: it reads values not traced to them (a loop body's or a function's input,
    // past the walk's budget), which may be any of them. Two Ifs whose conditions read disjoint
    // sources take their branches independently (C014: a combination of them is proven to happen).
    std::vector<std::string> reads;
    bool reads_unknown = true;
  };
  std::vector<Pick> picks;               // sorted by conditional; all of them together select the case
  int graph = -1, node = -1;             // the consumer
  int steps = 1;                         // nodes from the If to the consumer (1: it reads the If's output)
  std::vector<std::string> input_types;  // the consumer's inputs under those branches ("f32[2]"; "" when absent)
  std::string error;                     // why it fails (onnx's words for ONNX)
  std::string judged_by;                 // "onnx's MatMul-13 inference", "OpenVINO's MatMul shape rule"
  std::string verb;    // what it cannot do ("multiply f32[2] by f32[1,2]"; "" for ONNX: the rule says)
  SourceLocation loc;  // the consumer
};

// IR and NNAPI: what following the branches into the consumers found (loaders/branch_follow).
struct BranchFollowFacts {
  std::vector<BranchBreak> breaks;  // in graph order
  // A consumer of a value whose shape differs between an If's branches that condlint has no shape rule for: the
  // branches are not judged past it (C014's note, once per If).
  struct Gap {
    int conditional = -1;
    int graph = -1, node = -1;
    std::string op;
    SourceLocation loc;
  };
  std::vector<Gap> gaps;
  // An If whose consumers were followed for the budget of nodes, or up to a node where more cases of branches meet
  // than the budget of combinations, and no further (C014's note).
  struct Limit {
    int conditional = -1;
    int64_t limit = 0;
    SourceLocation loc;  // the node where it stopped
    bool combinations = false;
  };
  std::vector<Limit> limits;
};

// ----- Format-specific data that format rules read -----

// A parse problem the IR loader recorded; IR rules turn these into findings.
struct IrProblem {
  enum class Kind { MalformedXml, NotIr, BadAttribute } kind;
  std::string message;
  SourceLocation loc;
};

struct IrPortMapEntry {
  bool is_input = true;
  bool has_external = false, has_internal = false;
  int64_t external_port_id = 0;
  int64_t internal_layer_id = 0;
  Position loc;
};

struct IrIf {
  int graph = -1, node = -1;
  bool has_body[2] = {false, false};
  bool has_port_map[2] = {false, false};
  std::vector<IrPortMapEntry> port_map[2];
  int body_graph[2] = {-1, -1};
};

// A Loop layer's <port_map> and <back_edges> (what the executor and the ONNX export need to run it). Numbers that
// do not parse are -1 (the IR rules report the layer); body layers are named by their ids.
struct IrLoop {
  int graph = -1, node = -1;
  struct In {
    int64_t ext = 0, internal = 0;
    bool sliced = false;  // the input is sliced along an axis
  };
  struct Out {
    int64_t ext = 0, internal = 0;
    std::optional<int64_t> axis;  // concatenated along this axis (else the last iteration's value)
  };
  std::vector<In> ins;
  std::vector<Out> outs;
  std::vector<std::pair<int64_t, int64_t>> back;  // from Result layer id -> to Parameter layer id
  int64_t iter_layer = -1, cond_layer = -1;       // port_map purpose current_iteration / execution_condition
};

struct IrEdge {
  enum class Status { Ok, Unparsed, MissingFromLayer, MissingFromPort, MissingToLayer, MissingToPort, DuplicateTarget };
  std::string from_layer, from_port, to_layer, to_port;
  bool parsed = true;
  Status status = Status::Ok;
  Position loc;
};

struct IrGraphExtra {
  std::vector<IrEdge> edges;
  // When every layer id of the graph is a canonical non-negative integer ("0", "17"; no sign, no leading zero)
  // below 4 * (layers + 4), as OpenVINO writes them: index_of_id[id] = the first layer with that id, -1 none.
  // Empty otherwise. The loader and the IR rules look layers up here instead of hashing their ids.
  std::vector<int> index_of_id;
  // The layer with id `id` (as index_of_id finds it, so only when index_of_id is not empty), or -1.
  int layer_with_id(int64_t id) const {
    return id >= 0 && id < static_cast<int64_t>(index_of_id.size()) ? index_of_id[static_cast<size_t>(id)] : -1;
  }
};

struct IrConst {
  int graph = -1, node = -1;
  std::optional<int64_t> offset, size;
  ElemType elem = ElemType::Unknown;
  std::optional<Shape> shape;
};

// An XML comment `<!-- condlint-disable ID [ID...] -->` directly before or inside a <layer>:
// findings of those rules (IDs or prefixes; none = every rule) at that layer or its ports are suppressed.
struct IrSuppression {
  int graph = -1, node = -1;
  std::vector<std::string> rules;
  SourceLocation loc;  // the comment
};

struct IrData {
  std::string net_version;
  std::string weights_path;              // the .bin beside the .xml
  std::optional<uint64_t> weights_size;  // nullopt when the .bin does not exist
  // The .bin mapped by the loader (null when it does not exist or cannot be opened): every reader of a Const's bytes
  // (the condition tracer, the executor, the exporter) reads them here, never from the file, and only the pages it
  // reads cost memory.
  std::shared_ptr<const io::MappedFile> weights;
  // The `size` bytes at `offset` of the mapped .bin; nullopt when there is no mapping or they lie outside it.
  std::optional<std::string_view> weight_bytes(int64_t offset, uint64_t size) const;
  std::vector<IrProblem> problems;
  std::vector<IrIf> ifs;
  std::vector<IrGraphExtra> graph_extra;  // parallel to Model::graphs
  std::vector<IrConst> consts;
  std::vector<IrSuppression> suppressions;  // condlint-disable comments, in file order
  std::vector<IrLoop> loops;                // every Loop layer, in reading order
  BranchFollowFacts branch_follow;          // consumers that one branch of an If breaks (C014)
  // The Loop at node `node` of graph `graph`, or null.
  const IrLoop* loop_at(int graph, int node) const;
};

// What `condlint lint --exec` found when it ran the model on the golden data beside it (EX rules read it).
// Only --exec fills Model::exec; without it the EX rules stay silent.
struct ExecFinding {
  enum class Kind { GoldenMismatch, BranchFailed, Unsupported, SynthesizedFailed } kind = Kind::GoldenMismatch;
  std::string message;
  SourceLocation loc;  // the If (or the model's main graph when no node is known)
};
struct ExecResults {
  std::vector<ExecFinding> findings;
};

// Defined in model/onnx_data.hpp and model/nnapi_data.hpp: what ONNX and NNAPI rules read.
struct OnnxData;
struct NnapiData;
struct TfliteData;  // model/tflite_data.hpp

// A size a file declares past one of condlint's limits (docs/hardening.md: no real model comes near them). The
// loader does not build what was declared (a shape past kMaxRank is read as a shape of unknown rank, which is
// sound: it knows less) and records the fact; rule C013 reports it.
struct OverLimit {
  std::string what;      // "the shape of graph input 'x'"
  int64_t declared = 0;  // how many were declared
  int64_t limit = 0;
  SourceLocation loc;
  std::string unit = "dimensions";  // what `declared` counts
  bool whole_model = false;         // nothing of the model was built (not just the one shape)
};
constexpr int64_t kMaxRank = 1024;  // dimensions of one shape

// A deployment runtime that refused to load the model (`lint --target` where the runtime is installed: the lint
// session loads the model into it, diff/live_check). The rules ORT002 and OV002 report it.
struct LiveRefusal {
  std::string runtime;  // "onnxruntime" | "openvino"
  std::string version;  // the installed release that refused
  std::string stage;    // "optimizations off", "read_model", "compile_model on CPU", "loading"
  std::string message;  // the runtime's words
};

struct Model {
  Model();
  ~Model();
  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;
  Format format = Format::IR;
  std::string path;           // as given
  std::vector<Graph> graphs;  // flat: graph 0 is main, bodies follow; never recursive
  std::vector<ConditionalView> conditionals;
  std::unique_ptr<IrData> ir;          // set for IR models
  std::unique_ptr<OnnxData> onnx;      // set for ONNX models
  std::unique_ptr<NnapiData> nnapi;    // set for NNAPI models
  std::unique_ptr<TfliteData> tflite;  // set for TFLite models
  std::unique_ptr<ExecResults> exec;   // set by `lint --exec` only (exec/lint_exec.hpp)
  std::vector<OverLimit> over_limits;  // sizes past condlint's limits, not built (rule C013)
  // Every other file the loader read or looked for (.bin, external data, Blobs), present or not: the findings
  // depend on these besides the model's own bytes (`lint --cache` checks them before reusing a result).
  std::set<std::string> sources;
  // The readability verdict open_model applied when asked to (rules/readability: "" readable, else why not);
  // nullopt when it was not asked.
  std::optional<std::string> unreadable;
  std::vector<LiveRefusal> live_refusals;  // set by the lint session before the rules run

  const Node& node(int g, int n) const { return graphs[g].nodes[n]; }
  // Logical path of a graph ("main/if_cond/then") or of a node in it ("main/if_cond/then/Add").
  // Built by walking up the parents only when asked. Paths deeper than kHeadLevels + kTailLevels
  // levels keep their outer and inner levels and elide the middle ("main/a/then/...(9,000 levels)...
  // /z/then/Add"), so reporting stays linear however deep a file nests its conditionals.
  std::string path_of(int graph, int node = -1) const;
  // The same path never elided: what the executors name an If by (`--pin`, coverage, pins.json).
  std::string full_path_of(int graph, int node = -1) const;
  static constexpr int kHeadLevels = 4;
  static constexpr int kTailLevels = 12;
  // The path the Model names a node of an executor's path by: the executors run a call of an ONNX model-local
  // function inline (main/Call_f/If_1, one path per call), the Model has the function's body once
  // (function:DOMAIN.NAME/If_1). Any other path is returned as it is.
  std::string body_path_of(const std::string& exec_path) const;

 private:
  int anchor_of(int graph) const;
  mutable std::vector<int> anchor_cache_;  // graph -> its ancestor at depth kHeadLevels
  // function_call_paths(*this), built when first asked.
  mutable std::unordered_map<std::string, std::string> call_paths_;
  mutable bool call_paths_built_ = false;
};

// Model::full_path_of of each node that calls an ONNX model-local function whose body the Model has (a graph of
// role "function:DOMAIN.NAME") -> that role. Empty when the Model has no such body.
std::unordered_map<std::string, std::string> function_call_paths(const Model& m);
// Model::body_path_of through the calls `function_call_paths` found.
std::string body_path_through(const std::unordered_map<std::string, std::string>& calls, const std::string& exec_path);

}  // namespace condlint
