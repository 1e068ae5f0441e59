// The ONNX loader's builder, OnnxBuilder, and the state its steps share. It parses onnx::ModelProto through
// protobuf (recursion limit raised, bounded), then walks every graph once, iteratively, and
//   - fills the unified Model (graph 0 role "main", If branches "then"/"else", other subgraphs by their attribute:
//     "body"), one Node per NodeProto with typed ports;
//   - resolves every name through the chain of enclosing scopes: one hash map of the names visible
//     now (name -> innermost value; each value links to the one it hides), entries pushed as a graph
//     defines them and popped when the walk leaves that graph. Lookups are O(1) at any depth and
//     the whole walk is linear; the outer scope is never copied into a branch;
//   - runs onnx's own per-node type and shape inference (the schema of the model's opset), with
//     errors caught per node, to type values the file leaves undeclared;
//   - records the ONNX problems (OnnxData::problems) that the ONNX rules report;
//   - builds one ConditionalView per If for the generic rules C001-C011.
// Its methods live by step: onnx_parse.cpp (the bytes), onnx_scope.cpp (the walk and its scopes), onnx_external.cpp
// (external data), onnx_infer.cpp (types), onnx_check.cpp (onnx's checker), onnx_view.cpp (the Conditional views),
// onnx_loader.cpp (the entry points and build(), the steps in order).
#pragma once

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <google/protobuf/arena.h>

#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "loaders/onnx_branch_consumers.hpp"
#include "loaders/onnx_condition.hpp"
#include "loaders/onnx_functions.hpp"
#include "loaders/onnx_node_context.hpp"
#include "loaders/onnx_util.hpp"
#include "model/memory_hint.hpp"
#include "model/model.hpp"
#include "model/name_table.hpp"
#include "model/onnx_data.hpp"
#include "model/onnx_schema_facts.hpp"

namespace condlint::onnx_build {

namespace fs = std::filesystem;
using PKind = OnnxProblem::Kind;

constexpr int kMaxInferTypeDepth = 32;         // deeper nested input types are not handed to onnx
constexpr int64_t kMaxOpsetVersion = 1 << 30;  // larger imports are handed to no schema lookup (which takes an int)
constexpr int64_t kNewestIrVersion = 14;       // the newest IR version any onnx release defines (onnx.proto)

// A type as the loader keeps it: the TypeProto onnx's inference reads, with its TypeDesc and Shape converted once.
// Inferred and declared types are interned (one per distinct type); values share them.
struct Interned {
  const onnx::TypeProto* tp;
  ValueTypeRef vt;  // never null; the Model's ports share it
};

// One value visible in a scope.
struct Value {
  enum Src { Input, Initializer, NodeOutput } src = Input;
  int graph = -1, node = -1, output = -1;
  std::string_view name;
  const onnx::TypeProto* tp = nullptr;      // declared (or inferred when undeclared); null: unknown
  const onnx::TensorProto* data = nullptr;  // initializer / Constant value, for inference
  const Interned* typed = nullptr;          // tp converted; null when tp is
  const TypeDesc& type() const { return (typed ? *typed->vt : ValueType::unknown()).type; }
  const Shape& shape() const { return (typed ? *typed->vt : ValueType::unknown()).shape; }
  int hides = -1;  // the value of the same name this one hides (outer scope or duplicate), -1: none
  // The type rests on a problem already reported (an inference failure, a declaration that contradicts what the
  // node computes): nothing that follows from it is reported again.
  bool tainted = false;
  // The shape comes from more than onnx's own inference knows — a Loop's or a Scan's outputs, the live branch of an
  // If whose condition is decided, a node in a subgraph that reads a constant of an enclosing graph, or a node one of
  // whose inputs has such a type — so onnx's checker may not see a contradiction with it (ONNX007 then warns).
  bool beyond_onnx = false;
  // For a value of unknown type that is not tainted: the node where the unknown starts (graph << 32 | node; a node
  // without an onnx schema or inference), -1 when it starts at a graph input without a type.
  int64_t unknown_root = -1;
};

// What the inputs of a node rest on.
struct InputState {
  bool tainted = false;       // some input's type rests on a reported problem
  bool beyond_onnx = false;   // some input's type comes from condlint's own inference (Value::beyond_onnx)
  int64_t unknown_root = -2;  // the first untyped input's unknown_root; -2: every input is typed
};

struct GraphInfo {
  const onnx::GraphProto* proto = nullptr;  // null once released (release_subgraphs)
  onnx::AttributeProto* holder = nullptr;   // the attribute whose `g` it is (a GRAPHS list member: null)
  std::vector<int> defs;                    // values defined here, in order (kept after the walk leaves the graph)
  // value_info + outputs by name: a short list is scanned, a long one hashed.
  std::vector<const onnx::ValueInfoProto*> declared_list;
  std::unordered_map<std::string_view, const onnx::ValueInfoProto*> declared;
  std::vector<int> output_values;  // per graph output; -1 undefined
  bool is_if_branch = false;
  int if_branch_index = -1;    // 0 then, 1 else
  bool in_function = false;    // a model-local function's body or a graph inside one
  bool function_root = false;  // the body itself
};

struct IfInfo {
  int graph = -1, node = -1;
  int branch[2] = {-1, -1};
  int cond_value = -1;
  bool has_cond_name = false;
  ConditionProvenance provenance;  // traced when the If's outputs are typed (finish_node)
};

inline std::string qname(std::string_view s) { return "'" + std::string(s) + "'"; }

// Nodes, values (inputs, initializers, node outputs), graphs and If nodes in a graph and all its subgraphs,
// iteratively.
struct Counts {
  size_t nodes = 0, values = 0, graphs = 0, ifs = 0;
  size_t subgraph_nodes = 0;  // nodes held by a node's graph attributes: released as the walk leaves them
};
Counts count_nodes(const onnx::GraphProto& root);
// count_nodes' counts for nodes still in their bytes (the main graph's, split_main_graph).
void count_wire_nodes(const std::vector<std::string_view>& nodes, Counts& n);
// Bytes of the main graph's initializers and sparse initializers (a shallow scan of the wire format); 0 when
// the bytes do not scan.
size_t weight_bytes(std::string_view b);
// The shape of the tensor inside a sequence or optional (or of the tensor itself), for messages.
std::string inner_shape_str(const onnx::TypeProto& t);

class OnnxBuilder {
 public:
  OnnxBuilder(const std::string& path, std::string_view bytes, bool keep_proto)
      : path_(path), bytes_(bytes), keep_proto_(keep_proto) {}
  // Owns the bytes and frees them once they are parsed.
  OnnxBuilder(const std::string& path, std::string&& bytes, bool keep_proto)
      : path_(path), owned_bytes_(std::move(bytes)), bytes_(owned_bytes_), owns_bytes_(true), keep_proto_(keep_proto) {}
  ~OnnxBuilder();
  OnnxBuilder(const OnnxBuilder&) = delete;
  OnnxBuilder& operator=(const OnnxBuilder&) = delete;
  std::unique_ptr<Model> build();

 private:
  struct Frame {
    int graph;
    int next = 0;      // next node index to read
    int pending = -1;  // node whose subgraphs are being walked
    bool begun = false;
  };

  SourceLocation loc(int g, int n = -1) const {
    SourceLocation l;  // file left empty: the reporter fills in the model's path
    l.graph = g;
    l.node_index = n;
    return l;
  }
  // The type `vi` declares, or null when it declares none or a shape past kMaxRank: such a shape is recorded once
  // (rule C013) and never built, copied or handed to onnx's inference.
  const onnx::TypeProto* declared_of(const onnx::ValueInfoProto& vi, int g) const {
    if (!vi.has_type() || vi.type().value_case() == onnx::TypeProto::VALUE_NOT_SET) return nullptr;
    if (const int64_t rank = onnx_max_rank(vi.type()); rank > kMaxRank) {
      over_limit(&vi.type(), "the shape of " + qname(vi.name()) + " in " + where(g), rank, loc(g));
      return nullptr;
    }
    return &vi.type();
  }
  void over_limit(const void* what_ptr, std::string what, int64_t declared, SourceLocation l) const {
    if (over_limit_seen_.insert(what_ptr).second)
      model_->over_limits.push_back({std::move(what), declared, kMaxRank, std::move(l)});
  }
  void problem(PKind k, std::string msg, SourceLocation l) {
    taint(l);
    data_->problems.push_back({k, std::move(msg), std::move(l)});
  }
  // A name read where no scope defines it (ONNX009 decides; an error there, so onnx's checker is not asked again).
  void undefined_read(const std::string& name, int g, int n, int output, const SourceLocation& l) {
    taint(l);
    data_->undefined_reads.push_back({name, g, n, output, l});
  }
  // An error-level fact is recorded at `l`: onnx's checker is not consulted there (one root cause, one finding).
  void taint(const SourceLocation& l) {
    if (l.graph >= 0) error_at_.insert(int64_t(l.graph) << 32 | static_cast<uint32_t>(l.node_index));
  }
  // What onnx's checker (check_model, without its inference) rejects, checked where the walk stands, so the cost
  // stays linear. Recorded only where no other error is: one root cause, one finding.
  void checker_model();
  void checker_graph(int g);
  void checker_node(int g, int n, const onnx::NodeProto& np);
  void checker_problem(int g, int n, const std::string& what, const std::string& why);
  // Which definition judges a node. The linked onnx selects, for an opset import, the newest definition it has at or
  // below it; when the newest onnx condlint has facts of (model/onnx_schema_facts) selects a newer one, the node is
  // judged by those facts instead (Facts: its checker's rules, types from its constraints, no older inference), and
  // a node whose domain's opset is newer than even those facts know is judged by nothing (Unjudged).
  struct Judge {
    enum Kind { Linked, Facts, Unjudged } kind = Linked;
    const schema_facts::OpFacts* facts = nullptr;
  };
  // False for a tensor (or an attribute holding one) of an element type the linked onnx does not know: its checks are
  // not run. The types onnx added since (float8, int4, float4 ... onnx_elem_name) are judged by condlint's measure of
  // their data (ONNX018, packed sub-byte types included); any other is counted for ONNX016's note.
  bool linked_knows(const onnx::TensorProto& t) {
    if (t.data_type() <= onnx::TensorProto::BFLOAT16) return true;
    if (onnx_elem_name(t.data_type()).empty()) ++data_->unchecked_tensors;
    return false;
  }
  bool linked_knows(const onnx::AttributeProto& a) {
    if (a.has_t() && !linked_knows(a.t())) return false;
    if (a.has_sparse_tensor() && !linked_knows(a.sparse_tensor().values())) return false;
    for (const auto& t : a.tensors())
      if (!linked_knows(t)) return false;
    for (const auto& t : a.sparse_tensors())
      if (!linked_knows(t.values())) return false;
    return true;
  }
  static Judge judge_at(const std::string& op, const std::string& domain, int64_t version);
  const Judge& judge(const onnx::NodeProto& np);  // at the model's opset imports; cached per op and domain
  // onnx's checker's rules for one node, from the facts of its definition (fail_check on the first broken one).
  static void facts_verify(const onnx::NodeProto& np, const schema_facts::OpFacts& f);
  // Types from the definition's constraints for a node judged by facts (element types; shapes unknown), after the
  // check of its input types that onnx's strict inference makes. Reports a failure (ONNX008) unless an input is
  // tainted; true when the check failed.
  bool facts_infer(int g, int n, const onnx::NodeProto& np, const InputState& in, const schema_facts::OpFacts& f,
                   std::vector<const onnx::TypeProto*>& out_types);
  // The inference of the newer definition where condlint has one (loaders/onnx_newer_inference), into `typed` (one
  // per output, holding the element types the constraints fix). Reports a failure (ONNX008) unless an input is
  // tainted; false when it failed.
  bool newer_inference_hook(int g, int n, const onnx::NodeProto& np, const InputState& in,
                            const schema_facts::OpFacts& f, std::vector<onnx::TypeProto>& typed);
  static std::string facts_label(const onnx::NodeProto& np, const schema_facts::OpFacts& f) {
    return "onnx " + std::string(schema_facts::onnx_version()) + "'s " + np.op_type() + "-" +
           std::to_string(f.since_version);
  }
  std::string where(int g) const;  // "then_branch of If 'x'" / "the main graph"
  std::string node_label(int g, int n) const {
    const Node& node = model_->graphs[g].nodes[n];
    return node.op + " " + qname(node.name);
  }

  void start_model();
  bool parse();
  void reject_bytes(const WireScan& scan);
  bool parse_main_graph_apart();
  bool parse_root_node(int i);
  void drop_read_bytes(size_t upto);
  int node_count(int g) const { return g == 0 && stream_ ? root_node_count_ : gi_[g].proto->node_size(); }
  void begin_graph(int g);
  void read_node(size_t frame, std::vector<Frame>& stack);
  void read_inputs(int g, int n, const onnx::NodeProto& np);
  void record_if_form(int g, int n, const onnx::NodeProto& np);
  void read_subgraphs(int g, int n, const onnx::NodeProto& np, bool is_if, IfInfo& ii, std::vector<int>& children);
  void finish_node(int g, int n);
  // Hands the follower (loaders/onnx_branch_consumers) a finished If's branch types, or a finished node's inputs
  // while some value's type differs between branches. `settled`: the node's inference failed or rests on a problem.
  void follow_branches(int g, int n, const onnx::NodeProto& np, bool settled);
  std::unique_ptr<OnnxBranchFollow> follow_;
  void end_graph(int g);
  void leave_graph(int g);  // pops graph g's names from the visible scope
  int lookup(std::string_view name) const { return visible_.find(name); }
  int define(int g, Value v, bool check_shadow);
  bool equals_outer_initializer(const onnx::TensorProto& t, const Value& outer, int g) const;
  // onnx's inference for a node without subgraphs. Reports a failure (ONNX008) unless an input is tainted; true when
  // the node's own inference failed, so that its outputs are tainted.
  bool infer(int g, int n, const onnx::NodeProto& np, const InputState& in,
             std::vector<const onnx::TypeProto*>& out_types);
  // The value input i of node n of graph g reads: the ids the walk resolved for this node when it has them, else a
  // lookup of the name in the current scope; -1 for a name no scope defines.
  int input_id(int g, int n, const onnx::NodeProto& np, int i) const {
    const bool have_ids =
        input_ids_graph_ == g && input_ids_node_ == n && input_ids_.size() == static_cast<size_t>(np.input_size());
    return have_ids ? input_ids_[static_cast<size_t>(i)] : lookup(np.input(i));
  }
  // What the condition tracer knows of the value named `nm`; its shape from `world` (one case of branches followed
  // past an If, onnx_branch_consumers) when given, else the value's own unless it is tainted.
  CondValue cond_value(const std::string& nm, const OnnxBranchFollow::World* world = nullptr) const;
  InputState input_state(int g, int n, const onnx::NodeProto& np) const;
  // If: what both branches give; Loop / Scan: what the body and the initial values give. Sets tainted outputs.
  // beyond_onnx: set when the outputs' types are more than onnx's own inference gives (Value::beyond_onnx).
  void infer_control_flow(int g, int n, const onnx::NodeProto& np, std::vector<const onnx::TypeProto*>& out,
                          std::vector<char>& tainted, bool& beyond_onnx);
  const onnx::TypeProto* branch_output_type(int branch_graph, int k, bool* tainted) const;
  const onnx::TypeProto* union_of(const onnx::TypeProto* a, const onnx::TypeProto* b);
  const onnx::TypeProto* declared_type(int g, std::string_view name) const;
  void check_external(const onnx::TensorProto& t, int g, int n, const std::string& owner);
  // Where an external data location leads, without opening anything; the file's size when it is there.
  OnnxExternalData::Place resolve_external(const std::string& location, int64_t& file_size);
  // False, and the measure recorded for ONNX018, when the tensor's data cannot hold its dims. `initializer`: its
  // name; empty for the value of Constant node n.
  bool tensor_data_ok(const onnx::TensorProto& t, int g, int n, const std::string& initializer) {
    OnnxTensorSize size = measure_tensor(t);
    if (size.holds_dims()) return true;
    size.initializer = initializer;
    size.loc = loc(g, n);
    data_->tensor_sizes.push_back(std::move(size));
    return false;
  }
  ValueDesc desc_of(int value_id, const std::string& label) const;
  // The Conditional view of ifs_[index], when the If is finished (its branches walked, its outputs typed).
  void build_view(size_t index);
  // Frees the subgraphs of node n of graph g once it is finished, unless something may still point into them.
  void release_subgraphs(int g, int n);
  void compact_root_nodes();
  void build_views();
  Port port_of(std::string_view name, int value_id) const;

  const std::string& path_;
  std::string owned_bytes_;  // the file's bytes when the builder owns them (declared before bytes_)
  std::string_view bytes_;
  bool owns_bytes_ = false;  // bytes_ views owned_bytes_
  // Frees the owned bytes (and forgets them: bytes_ then views nothing); bytes the caller keeps stay viewed.
  void free_owned_bytes() {
    std::string().swap(owned_bytes_);
    if (owns_bytes_) bytes_ = {};
  }
  // The parsed model on the heap (with mimalloc a fifth smaller and faster to parse than on an arena); freed on a
  // big stack when it needed one to be parsed (parse(), ~OnnxBuilder). The TypeProtos the loader makes live on an
  // arena.
  onnx::ModelProto* proto_ = new onnx::ModelProto;
  bool keep_proto_ = false;  // hand the parsed model to OnnxData::proto
  bool parsed_on_big_stack_ = false;
  // The main graph's nodes are parsed one at a time, as the walk reaches them (parse_main_graph_apart): not when the
  // executor keeps the parsed model, nor for bytes that do not split (they are parsed whole).
  bool stream_ = true;
  bool stream_failed_ = false;                // a node did not parse: the file is rejected as a whole parse would be
  std::vector<std::string_view> root_nodes_;  // their bytes, until the last one is parsed
  int root_node_count_ = 0;
  size_t bytes_dropped_ = 0;  // the owned bytes before this offset are read no more: their pages went back
  // Walked subgraphs are freed as the walk leaves them (not when the executor keeps the parsed model, nor when it
  // was parsed on the big stack, where it must be freed too): a big model's parsed branches and its Model are then
  // never all in memory at once.
  bool release_walked_ = false;
  TextTable texts_;                        // the nodes' domains, one copy each
  std::optional<YoungAllocations> young_;  // the parsed messages' pages, apart from the Model's
  std::vector<char> view_built_;           // per ifs_ entry
  google::protobuf::Arena arena_;
  std::unique_ptr<Model> model_;
  OnnxData* data_ = nullptr;
  std::vector<GraphInfo> gi_;
  std::vector<Value> values_;
  std::vector<int> free_values_;  // slots of values_ whose graph was freed (release_subgraphs), for define()
  NameTable visible_;             // the scope chain as seen from the current graph: name -> value id
  onnx::TypeProto* new_type() { return google::protobuf::Arena::CreateMessage<onnx::TypeProto>(&arena_); }
  onnx::TypeProto init_type_scratch_;  // an initializer's type while it is built, before define() interns it
  std::vector<IfInfo> ifs_;
  std::deque<onnx::TensorProto> owned_tensors_;
  // Inferred types are immutable once made, and a model has few distinct ones (float [2] ...): one copy each, with
  // its TypeDesc and Shape converted once (Interned).
  std::unordered_map<std::string, const Interned*> interned_types_;       // serialized type -> the copy
  std::unordered_map<const onnx::TypeProto*, const Interned*> interned_;  // the copy -> itself
  std::deque<Interned> interned_store_;
  std::deque<Interned> uninterned_;  // the converted types of values whose type is not interned (nested too deep)
  std::string type_key_;
  static Interned converted(const onnx::TypeProto& t) {
    return {&t, std::make_shared<const ValueType>(ValueType{onnx_type_desc(t), onnx_shape(t)})};
  }
  const Interned& intern(const onnx::TypeProto& t) {
    if (auto it = interned_.find(&t); it != interned_.end()) return *it->second;
    type_key_.clear();
    t.AppendToString(&type_key_);
    auto [it, fresh] = interned_types_.try_emplace(type_key_, nullptr);
    if (fresh) {
      onnx::TypeProto* keep = new_type();
      keep->CopyFrom(t);
      it->second = &interned_store_.emplace_back(converted(*keep));
      interned_.emplace(keep, it->second);
    }
    return *it->second;
  }
  // What onnx's inference gave for what an inference function can see of a node: its schema, output count, each
  // input's type and constant data (by address: interned types and initializers are shared) and its attributes. The
  // nodes of one pattern (the Add of every block) are inferred once. Failures are not kept (each reports its node).
  std::unordered_map<std::string, std::vector<const onnx::TypeProto*>> inferred_;
  mutable std::unordered_set<const void*> over_limit_seen_;  // what declared_of / over_limit recorded
  std::string infer_key_;
  std::vector<const onnx::TypeProto*> inferred_scratch_;
  std::vector<int> input_ids_;  // the value ids read_node resolved for the node finish_node is about to finish
  int input_ids_graph_ = -1, input_ids_node_ = -1;
  std::unordered_map<int64_t, int> if_at_;
  std::unordered_set<int64_t> error_at_;           // (graph << 32 | node) where an error-level problem is recorded
  onnx::checker::CheckerContext checker_ctx_;      // ir_version and opset imports as onnx's checker reads them
  onnx::checker::CheckerContext checker_sub_ctx_;  // the same for subgraphs (is_main_graph false)
  std::unordered_map<std::string, const onnx::OpSchema*> checker_schemas_;  // op_type '\0' domain -> schema
  std::string checker_key_;
  bool checker_on_ = false;                        // ONNX013: where an unknown type starts, reported once
  std::unordered_map<std::string, Judge> judges_;  // op_type '\0' domain -> its judge at the model's imports
  std::string judge_key_;
  // Nodes whose outputs condlint leaves untyped where a newer onnx infers them (judged by facts, or by nothing):
  // an unknown type that starts there is condlint's ignorance, not the model's defect (no ONNX013).
  std::unordered_set<int64_t> uninferred_roots_;
  struct CachedSchema {
    const onnx::OpSchema* schema;
    onnx::InferenceFunction fn;
    const onnx::FunctionProto* body;  // a function body, used when the schema has no inference function
  };
  std::unordered_map<std::string, CachedSchema>
      schema_cache_;  // op_type '\0' domain  // (graph << 32 | node) -> index in ifs_
  int64_t onnx_opset_ = -1;
  NodeContext ctx_;
  // Model-local functions (loaders/onnx_functions): their calls are typed through their bodies, and each body is
  // walked once, as a root graph of its own, after the main graph (walk_functions).
  class Hooks final : public onnx_functions::TypingHooks {
   public:
    explicit Hooks(OnnxBuilder& b) : b_(b) {}
    std::string infer_node(const onnx::NodeProto& n, const std::vector<const onnx::TypeProto*>& in,
                           const std::vector<const onnx::TensorProto*>& data,
                           std::vector<const onnx::TypeProto*>& out) override {
      return b_.infer_detached(n, in, data, out);
    }
    const onnx::TypeProto* unite(const onnx::TypeProto* a, const onnx::TypeProto* c) override {
      return b_.union_of(a, c);
    }
    const onnx::TypeProto* keep(const onnx::TypeProto& t) override {
      if (onnx_type_depth(t) > kMaxInferTypeDepth || onnx_max_rank(t) > kMaxRank) return nullptr;
      return b_.intern(t).tp;
    }

   private:
    OnnxBuilder& b_;
  };
  std::unique_ptr<onnx_functions::FunctionIndex> functions_;
  std::unique_ptr<Hooks> hooks_;
  std::unique_ptr<onnx_functions::CallTyper> typer_;
  std::vector<onnx_functions::CallSites> call_sites_;  // per function
  std::vector<char> function_walked_;                  // per function
  std::deque<onnx::GraphProto> function_bodies_;       // the walked bodies (body_graph)
  std::vector<std::pair<int, int>> function_graphs_;   // per function: its graphs [first, end); {-1, -1} not walked
  NameTable detached_;                                 // the scope of a node typed inside a call (infer_detached)
  std::string* detached_failure_ = nullptr;            // where infer() says why a node typed inside a call fails
  // Calls whose typing through the body failed, per function: reported at the call unless the body's own walk
  // reports a problem (it does when every call agrees on the types that fail).
  struct CallFailure {
    int graph, node;
    std::string why;
  };
  std::vector<std::vector<CallFailure>> call_failures_;
  int typing_graph_ = -1, typing_node_ = -1;  // the call being typed
  // A call of a model-local function: its outputs typed through the body, its input types and attributes
  // recorded for the body's walk. False when the node calls none.
  // `failed`: the call is invalid (reported unless an input is tainted), its outputs rest on it.
  bool type_call(int g, int n, const onnx::NodeProto& np, const InputState& in,
                 std::vector<const onnx::TypeProto*>& out, bool& failed);
  // "" or why the node's inference fails.
  std::string infer_detached(const onnx::NodeProto& np, const std::vector<const onnx::TypeProto*>& in,
                             const std::vector<const onnx::TensorProto*>& data,
                             std::vector<const onnx::TypeProto*>& out);
  bool walk(int root);  // false: a main-graph node protobuf rejects
  void walk_functions();
  void checker_functions();
  fs::path dir_;
  std::optional<fs::path> dir_canonical_;
};

}  // namespace condlint::onnx_build
