// ONNX loader: onnx::ModelProto through protobuf (recursion limit raised, bounded), then one
// iterative walk over every graph that
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
// It never throws past load_onnx: bad bytes are an ONNX001 problem.
#include <onnx/checker.h>
#include <onnx/defs/data_type_utils.h>
#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>

#include <algorithm>
#include <cctype>
#include <atomic>
#include <deque>
#include <filesystem>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <thread>
#include <unordered_set>

#include "loaders/loader.hpp"
#include "loaders/onnx_branch_consumers.hpp"
#include "loaders/onnx_condition.hpp"
#include "loaders/onnx_functions.hpp"
#include "loaders/onnx_newer_inference.hpp"
#include "loaders/onnx_node_context.hpp"
#include "loaders/onnx_util.hpp"
#include "loaders/onnx_wire.hpp"
#include "model/memory_hint.hpp"
#include "model/name_table.hpp"
#include "model/onnx_data.hpp"
#include "model/onnx_schema_facts.hpp"

namespace condlint {

namespace {

namespace fs = std::filesystem;
using PKind = OnnxProblem::Kind;

constexpr int kRecursionLimit = 100000;          // protobuf message nesting; 1,000 nested Ifs need ~3,000
constexpr int kFallbackRecursionLimit = 8000;    // when no parsing thread can be started
constexpr int kInlineRecursionLimit = 200;       // parsed on the caller's stack (about 60 nested Ifs)
constexpr size_t kParseStack = size_t(1) << 30;  // stack of the parsing thread (reserved, not touched)
constexpr int kMaxInferTypeDepth = 32;
constexpr int64_t kMaxOpsetVersion = 1 << 30;  // larger imports are handed to no schema lookup (which takes an int)
constexpr int64_t kNewestIrVersion = 14;  // the newest IR version any onnx release defines (onnx.proto)          //
                                          // deeper nested input types are not handed to onnx

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

std::string qname(std::string_view s) { return "'" + std::string(s) + "'"; }

// Bytes of the main graph's initializers and sparse initializers, by a shallow scan of the wire format (the
// model's field 7, and in it fields 5 and 15), without parsing. 0 when the bytes do not scan.
size_t weight_bytes(std::string_view b) {
  size_t total = 0;
  const bool ok = for_each_wire_field(b, [&](const WireField& f) {
    if (f.number == 7 && f.wire == 2)
      (void)for_each_wire_field(f.payload, [&](const WireField& gf) {
        if ((gf.number == 5 || gf.number == 15) && gf.wire == 2) total += gf.payload.size();
      });
  });
  return ok ? std::min(total, b.size()) : 0;
}

// Nodes, values (inputs, initializers, node outputs), graphs and If nodes in a graph and all its subgraphs,
// iteratively.
struct Counts {
  size_t nodes = 0, values = 0, graphs = 0, ifs = 0;
  size_t subgraph_nodes = 0;  // nodes held by a node's graph attributes: released as the walk leaves them
};
Counts count_nodes(const onnx::GraphProto& root) {
  Counts n;
  std::vector<const onnx::GraphProto*> todo{&root};
  while (!todo.empty()) {
    const onnx::GraphProto* g = todo.back();
    todo.pop_back();
    ++n.graphs;
    n.nodes += static_cast<size_t>(g->node_size());
    if (g != &root) n.subgraph_nodes += static_cast<size_t>(g->node_size());
    n.values += static_cast<size_t>(g->input_size() + g->initializer_size() + g->sparse_initializer_size());
    for (const auto& node : g->node()) {
      n.values += static_cast<size_t>(node.output_size());
      if (node.op_type() == "If") ++n.ifs;
      for (const auto& a : node.attribute()) {
        if (a.has_g()) todo.push_back(&a.g());
        for (const auto& sg : a.graphs()) todo.push_back(&sg);
      }
    }
  }
  return n;
}

// The main graph cut out of a model's bytes: the model's fields around its graph, the runs of the graph's fields
// between its nodes, and each node's bytes. Parsed piece by piece in this order they give the model parsed whole
// (protobuf merges a message's fields in the order they come), so the walk can parse the main graph's nodes one at a
// time as it reaches them, and the parsed branches of all of them are never in memory at once.
struct MainGraphSplit {
  std::string_view before, after;             // the model's fields before and after its graph
  std::vector<std::string_view> graph_parts;  // the graph's fields, without its nodes
  std::vector<std::string_view> nodes;        // each of graph.node, in order
};
// False when the bytes do not scan, or hold no graph field or more than one: they are then parsed whole.
bool split_main_graph(std::string_view b, MainGraphSplit& out) {
  size_t graphs = 0;
  WireField graph;
  const bool scanned = for_each_wire_field(b, [&](const WireField& f) {
    if (f.number == 7) {
      ++graphs;
      graph = f;
    }
  });
  if (!scanned || graphs != 1 || graph.wire != 2) return false;
  out.before = b.substr(0, graph.begin);
  out.after = b.substr(graph.end);
  const std::string_view g = graph.payload;
  size_t run = 0;  // where the current run of other fields starts
  const bool ok = for_each_wire_field(g, [&](const WireField& f) {
    if (f.number != 1 || f.wire != 2) return;
    if (f.begin > run) out.graph_parts.push_back(g.substr(run, f.begin - run));
    out.nodes.push_back(f.payload);
    run = f.end;
  });
  if (!ok) return false;
  if (run < g.size()) out.graph_parts.push_back(g.substr(run));
  return true;
}

// count_nodes' counts for nodes still in their bytes (the main graph's, split_main_graph), by a scan of the wire
// format (NodeProto output 2, op_type 4, attribute 5; AttributeProto g 6, graphs 11; GraphProto node 1, input 11,
// initializer 5, sparse_initializer 15). They size the walk's lists; bytes that do not scan are counted as far as
// they scan (the node then fails to parse).
void count_wire_nodes(const std::vector<std::string_view>& nodes, Counts& n) {
  std::vector<std::pair<std::string_view, bool>> todo;  // bytes, is a graph (else a node)
  for (std::string_view node : nodes) todo.emplace_back(node, false);
  n.nodes += nodes.size();
  while (!todo.empty()) {
    const auto [bytes, is_graph] = todo.back();
    todo.pop_back();
    if (is_graph) {
      ++n.graphs;
      (void)for_each_wire_field(bytes, [&](const WireField& f) {
        if (f.wire != 2) return;
        if (f.number == 1) {
          ++n.nodes;
          ++n.subgraph_nodes;
          todo.emplace_back(f.payload, false);
        } else if (f.number == 5 || f.number == 11 || f.number == 15) {
          ++n.values;
        }
      });
      continue;
    }
    std::string_view op;
    (void)for_each_wire_field(bytes, [&](const WireField& f) {
      if (f.wire != 2) return;
      if (f.number == 2) ++n.values;
      else if (f.number == 4) op = f.payload;
      else if (f.number == 5)
        (void)for_each_wire_field(f.payload, [&](const WireField& a) {
          if (a.wire == 2 && (a.number == 6 || a.number == 11)) todo.emplace_back(a.payload, true);
        });
    });
    if (op == "If") ++n.ifs;
  }
}

// The shape of the tensor inside a sequence or optional (or of the tensor itself), for messages.
std::string inner_shape_str(const onnx::TypeProto& t) {
  const onnx::TypeProto* p = &t;
  for (int depth = 0; depth < 32 && p; ++depth) {
    if (p->has_sequence_type()) p = p->sequence_type().has_elem_type() ? &p->sequence_type().elem_type() : nullptr;
    else if (p->has_optional_type()) p = p->optional_type().has_elem_type() ? &p->optional_type().elem_type() : nullptr;
    else break;
  }
  return p ? onnx_shape(*p).str() : std::string("?");
}

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

std::string OnnxBuilder::where(int g) const {
  if (g <= 0) return "the main graph";
  const Graph& gr = model_->graphs[g];
  if (gr.parent_graph < 0) return "function " + qname(std::string_view(gr.role).substr(gr.role.find(':') + 1));
  const Node& parent = model_->graphs[gr.parent_graph].nodes[gr.parent_node];
  return onnx_attribute_of_role(parent.op, gr.role) + " of " + parent.op + " " + qname(parent.name);
}

// Runs fn on a thread with a kParseStack stack (reserved, not touched): protobuf parses and frees nested messages
// recursively, so a hostile nesting must not reach the caller's stack. False when no such thread can be started.
template <class F>
bool on_big_stack(F& fn) {
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return false;
  pthread_t tid;
  const bool ran = pthread_attr_setstacksize(&attr, kParseStack) == 0 && pthread_create(
                                                                             &tid, &attr,
                                                                             [](void* f) -> void* {
                                                                               (*static_cast<F*>(f))();
                                                                               return nullptr;
                                                                             },
                                                                             &fn) == 0;
  pthread_attr_destroy(&attr);
  if (ran) pthread_join(tid, nullptr);
  return ran;
}

// Merges serialized bytes (< 2 GiB) into a message; false when protobuf rejects them or they nest past `limit`.
bool merge_bytes(std::string_view bytes, google::protobuf::MessageLite& m, int limit) {
  if (bytes.empty()) return true;
  try {
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                              static_cast<int>(bytes.size()));
    in.SetRecursionLimit(limit);
    return m.MergeFromCodedStream(&in) && in.ConsumedEntireMessage();
  } catch (const std::exception&) {
    return false;
  }
}

// What does not parse within the inline limit: parsed again into a fresh *m, as deep as kRecursionLimit, on a thread
// with a big stack, where a failed parse's partial messages are freed too (*m is then an empty message); without such
// a thread, as deep as the caller's stack bears. `big`: parsed on the big stack, so to be freed there.
template <class M>
bool parse_past_inline_limit(std::string_view bytes, M*& m, bool& big) {
  m = new M;
  bool ok = false;
  auto job = [&] {
    ok = merge_bytes(bytes, *m, kRecursionLimit);
    if (!ok) {
      delete m;
      m = new M;
    }
  };
  if (on_big_stack(job)) {
    big = ok;
    return ok;
  }
  big = false;
  return merge_bytes(bytes, *m, kFallbackRecursionLimit);
}

// The finding for bytes protobuf rejects, where the scan of their top level says the problem starts.
void OnnxBuilder::reject_bytes(const WireScan& scan) {
  SourceLocation l = loc(0);
  l.offset = scan.offset;
  std::string msg = "not a valid ONNX ModelProto";
  // What git leaves in place of a model stored in Git LFS whose data is not checked out: a short text, named as such.
  if (std::string_view(bytes_).substr(0, 40) == "version https://git-lfs.github.com/spec/")
    msg += ": the file is a Git LFS pointer, not the model: is the data checked out (git lfs pull)?";
  else if (bytes_.size() > static_cast<size_t>(INT32_MAX)) msg += ": the file is larger than protobuf's 2 GiB limit";
  else if (!scan.error.empty()) msg += ": " + scan.error + " at byte " + std::to_string(scan.offset);
  else msg += ": protobuf rejects the bytes (a field holds the wrong wire type or invalid UTF-8)";
  problem(PKind::Parse, msg, l);
}

// Everything but the main graph's nodes, whose bytes are kept for parse_root_node. False (and nothing kept) when the
// bytes do not split or a piece does not parse within the inline limit: the model is then parsed whole.
bool OnnxBuilder::parse_main_graph_apart() {
  MainGraphSplit split;
  if (!split_main_graph(bytes_, split)) return false;
  onnx::GraphProto* graph = proto_->mutable_graph();
  bool ok = merge_bytes(split.before, *proto_, kInlineRecursionLimit);
  for (std::string_view part : split.graph_parts) ok = ok && merge_bytes(part, *graph, kInlineRecursionLimit - 1);
  ok = ok && merge_bytes(split.after, *proto_, kInlineRecursionLimit);
  if (!ok) {
    proto_->Clear();
    return false;
  }
  root_nodes_ = std::move(split.nodes);
  root_node_count_ = static_cast<int>(root_nodes_.size());
  return true;
}

// Parses node i of the main graph (the walk reaches them in order) into the graph, as parse() parses a model: within
// the inline limit on this thread, else on a big stack (and then the model is freed there, and no more subgraphs are
// freed on this thread as the walk leaves them). False when protobuf rejects the node. The owned bytes before the
// next node are read no more: their pages go back to the system as the walk goes (drop_read_bytes), all of them
// after the last node.
bool OnnxBuilder::parse_root_node(int i) {
  onnx::GraphProto* graph = proto_->mutable_graph();
  if (graph->node_size() != i || i >= root_node_count_) return false;
  const std::string_view bytes = root_nodes_[static_cast<size_t>(i)];
  if (!merge_bytes(bytes, *graph->add_node(), kInlineRecursionLimit - 2)) {
    graph->mutable_node()->RemoveLast();  // what was parsed of it nests within the inline limit: cleared here
    onnx::NodeProto* node = nullptr;
    bool big = false;
    if (!parse_past_inline_limit(bytes, node, big)) {
      delete node;  // empty, or nested no deeper than the caller's stack bears
      return false;
    }
    graph->mutable_node()->AddAllocated(node);
    if (big) {
      parsed_on_big_stack_ = true;
      release_walked_ = false;
    }
  }
  if (i + 1 == root_node_count_) {
    std::vector<std::string_view>().swap(root_nodes_);
    free_owned_bytes();
  } else if (owns_bytes_) {
    drop_read_bytes(static_cast<size_t>(root_nodes_[static_cast<size_t>(i) + 1].data() - owned_bytes_.data()));
  }
  return true;
}

// Gives the whole pages of the owned bytes before `upto` back to the system (they read as zeros after), 4 MiB or more
// at a time: a page given back is faulted in again when the allocator reuses it, which costs more than it saves on
// files of a few megabytes (1 MiB batches quadrupled the page faults of linting the pinned real models). Only the
// builder's own copy: the caller's bytes are never touched.
void OnnxBuilder::drop_read_bytes(size_t upto) {
  constexpr size_t kBatch = size_t(4) << 20;
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  if (page == 0 || upto < bytes_dropped_ + kBatch) return;
  const auto base = reinterpret_cast<uintptr_t>(owned_bytes_.data());
  const uintptr_t from = (base + bytes_dropped_ + page - 1) / page * page;
  const uintptr_t to = (base + upto) / page * page;
  if (to > from) (void)madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
  bytes_dropped_ = upto;
}

OnnxBuilder::~OnnxBuilder() {
  // Freeing is as recursive as parsing: a model that needed the big stack to parse needs it to be freed (and when no
  // thread can be started for that, its messages are left to the process rather than risk the stack).
  auto free_proto = [this] { delete proto_; };
  if (parsed_on_big_stack_) (void)on_big_stack(free_proto);
  else free_proto();
}

bool OnnxBuilder::parse() {
  // protobuf parses (and frees) nested messages recursively. Most models nest a few dozen messages deep: they are
  // parsed here with a limit this thread's stack bears. What fails that is parsed again on a thread whose stack is
  // large enough for the bounded limit, so a hostile nesting is a finding, never a crash; a failed parse's partial
  // messages are freed there too, and a deep model that parses is freed on such a thread (~OnnxBuilder).
  // Everything after parsing is iterative.
  bool ok = false;
  // onnx's schema registry (~10 ms, built on first use, once per process) is built meanwhile on another thread: the
  // per-node inference needs it next.
  static std::atomic<bool> registry_started{false};
  struct Joined {
    std::thread t;
    ~Joined() {
      if (t.joinable()) t.join();
    }
  } registry;
  if (!registry_started.exchange(true)) {
    try {
      registry.t = std::thread([] { (void)onnx::OpSchemaRegistry::Schema("If", 1, ""); });
    } catch (const std::exception&) {  // no thread: the first inference builds it
    }
  }
  if (bytes_.size() <= static_cast<size_t>(INT32_MAX) && stream_ && parse_main_graph_apart()) {
    ok = true;
  } else if (bytes_.size() <= static_cast<size_t>(INT32_MAX)) {
    stream_ = false;
    ok = merge_bytes(bytes_, *proto_, kInlineRecursionLimit);  // proto_ is empty: nothing or a failed split was in it
    if (!ok) {
      delete proto_;
      ok = parse_past_inline_limit(bytes_, proto_, parsed_on_big_stack_);
    }
  }
  if (!ok) {
    reject_bytes(scan_wire(bytes_, kRecursionLimit));
    return false;
  }
  if (!proto_->has_graph()) {
    problem(PKind::Parse,
            proto_->ir_version() == 0
                ? "not an ONNX model: the bytes parse as protobuf but hold no ir_version and no graph"
                : "the ModelProto has no graph",
            loc(0));
    return false;
  }
  return true;
}

const onnx::TypeProto* OnnxBuilder::declared_type(int g, std::string_view name) const {
  const onnx::ValueInfoProto* vi = nullptr;
  if (!gi_[g].declared_list.empty()) {
    for (const auto* p : gi_[g].declared_list)
      if (p->name() == name) {
        vi = p;
        break;
      }
  } else {
    const auto& d = gi_[g].declared;
    auto it = d.find(name);
    if (it != d.end()) vi = it->second;
  }
  return vi ? declared_of(*vi, g) : nullptr;
}

// Adds a name to graph g's scope. Returns the value id.
int OnnxBuilder::define(int g, Value v, bool check_shadow) {
  int id = static_cast<int>(values_.size());
  if (!free_values_.empty()) {
    id = free_values_.back();
    free_values_.pop_back();
  }
  v.graph = g;
  if (v.tp && onnx_type_depth(*v.tp) <= kMaxInferTypeDepth) {
    // Declared types too: one copy per distinct type, so that nodes reading equal types share an inference.
    const Interned& t = intern(*v.tp);
    v.tp = t.tp;
    v.typed = &t;
  } else if (v.tp) {  // nested too deep to serialize on this stack (and never handed to onnx's inference)
    v.typed = &uninterned_.emplace_back(converted(*v.tp));
  }
  const auto [seen, fresh] = visible_.emplace(v.name, id);
  const int n = v.src == Value::NodeOutput ? v.node : -1;
  if (!fresh) v.hides = seen;
  // A name defined again in the same graph (SSA), or in a subgraph over an outer value: ONNX010 and ONNX011 decide.
  if (!fresh && (values_[seen].graph == g || check_shadow)) {
    using Src = OnnxRedefinition::Source;
    auto source = [](Value::Src s) {
      return s == Value::Input ? Src::Input : s == Value::Initializer ? Src::Initializer : Src::NodeOutput;
    };
    const Value& prev = values_[seen];
    taint(loc(g, n));
    data_->redefinitions.push_back(
        {std::string(v.name), g, source(v.src), prev.graph, source(prev.src), prev.node, loc(g, n)});
  }
  if (!fresh) visible_.assign(v.name, id);
  gi_[g].defs.push_back(id);
  if (id == static_cast<int>(values_.size())) values_.push_back(std::move(v));
  else values_[id] = std::move(v);
  return id;
}

void OnnxBuilder::check_external(const onnx::TensorProto& t, int g, int n, const std::string& owner) {
  if (t.data_location() != onnx::TensorProto::EXTERNAL || is_mapped_payload(t)) return;
  using Place = OnnxExternalData::Place;
  OnnxExternalData e;
  e.owner = owner + " in " + where(g);
  e.loc = loc(g, n);
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") e.location = kv.value();
    else if (kv.key() == "offset" || kv.key() == "length") {
      int64_t v = 0;
      if (!parse_int64(kv.value(), v) || v < 0) e.bad_number = true;
      else (kv.key() == "offset" ? e.offset : e.length) = v;
    }
  }
  e.place = resolve_external(e.location, e.file_size);
  // A location that leaves the directory is an error there (ONNX014): onnx's checker is not asked about it again.
  if (e.place == Place::NoLocation || e.place == Place::LeavesDirectory || e.place == Place::LinkLeavesDirectory)
    taint(e.loc);
  data_->external_data.push_back(std::move(e));
}

OnnxExternalData::Place OnnxBuilder::resolve_external(const std::string& location, int64_t& file_size) {
  using Place = OnnxExternalData::Place;
  if (location.empty()) return Place::NoLocation;
  const fs::path rel(location);
  bool escapes =
      rel.is_absolute() || rel.has_root_name() || rel.has_root_directory() || location.find('\0') != std::string::npos;
  for (const auto& part : rel)
    if (part == "..") escapes = true;
  if (escapes) return Place::LeavesDirectory;
  std::error_code ec;
  if (!dir_canonical_) {
    dir_canonical_ = fs::canonical(dir_.empty() ? fs::path(".") : dir_, ec);
    if (ec) dir_canonical_ = dir_;
  }
  const fs::path full = (dir_.empty() ? fs::path(".") : dir_) / rel;
  model_->sources.insert(full.string());
  if (fs::is_symlink(full, ec) || fs::exists(full, ec)) {
    const fs::path real = fs::weakly_canonical(full, ec);
    if (!ec) {
      auto rit = real.begin();
      for (auto dit = dir_canonical_->begin(); dit != dir_canonical_->end(); ++dit, ++rit)
        if (rit == real.end() || *rit != *dit) return Place::LinkLeavesDirectory;
    }
  }
  if (!fs::is_regular_file(full, ec)) return Place::Missing;
  const auto size = fs::file_size(full, ec);
  file_size = ec ? -1 : static_cast<int64_t>(size);
  return Place::Present;
}

void OnnxBuilder::begin_graph(int g) {
  GraphInfo& info = gi_[g];
  const onnx::GraphProto& gp = *info.proto;
  checker_graph(g);
  model_->graphs[g].nodes.reserve(static_cast<size_t>(node_count(g)));
  if (gp.value_info_size() + gp.output_size() <= 8) {
    for (const auto& vi : gp.value_info()) info.declared_list.push_back(&vi);
    for (const auto& vi : gp.output()) info.declared_list.push_back(&vi);
  } else {
    info.declared.reserve(gp.value_info_size() + gp.output_size());
    for (const auto& vi : gp.value_info()) info.declared.emplace(vi.name(), &vi);
    for (const auto& vi : gp.output()) info.declared.emplace(vi.name(), &vi);
  }

  if (info.is_if_branch && gp.input_size() > 0) {
    std::set<std::string_view> inits;
    for (const auto& t : gp.initializer()) inits.insert(t.name());
    std::vector<std::string> formal;
    for (const auto& in : gp.input())
      if (data_->ir_version >= 4 || !inits.count(in.name())) formal.push_back(in.name());
    if (!formal.empty()) {
      taint(loc(g));  // ONNX004 reports it; onnx's checker is not asked about this graph again
      data_->branch_inputs.push_back({g, std::move(formal), loc(g)});
    }
  }
  const bool sub = g > 0;
  for (const auto& in : gp.input()) {
    Value v;
    v.src = Value::Input;
    v.name = in.name();
    v.tp = declared_of(in, g);
    if (!v.tp && in.has_type() && in.type().value_case() != onnx::TypeProto::VALUE_NOT_SET) v.tainted = true;
    // A function's input is untyped when its calls do not agree on a type: condlint's ignorance, not the model's.
    if (!v.tp && info.function_root) {
      v.unknown_root = int64_t(g) << 32 | 0xffffffff;
      uninferred_roots_.insert(v.unknown_root);
    }
    define(g, std::move(v), sub);
  }
  auto add_init = [&](const onnx::TensorProto& t, bool sparse, const onnx::TensorProto* dims_from) {
    check_external(t, g, -1, "initializer " + qname(t.name()));
    // Data that cannot hold its dims is reported and never handed to onnx's inference (which would read past it).
    const bool data_ok = sparse || tensor_data_ok(t, g, -1, t.name());
    onnx::TypeProto& tp = *new_type();
    auto* tt = sparse ? tp.mutable_sparse_tensor_type() : nullptr;
    auto* dt = sparse ? nullptr : tp.mutable_tensor_type();
    const auto* src = dims_from ? dims_from : &t;
    if (sparse) tt->set_elem_type(t.data_type());
    else dt->set_elem_type(t.data_type());
    const bool too_many_dims = src->dims_size() > kMaxRank;  // left of unknown rank (rule C013)
    if (too_many_dims) {
      over_limit(&t, "the dims of initializer " + qname(t.name()) + " in " + where(g), src->dims_size(), loc(g));
    } else {
      auto* shape = sparse ? tt->mutable_shape() : dt->mutable_shape();
      for (int64_t d : src->dims()) shape->add_dim()->set_dim_value(d);
    }
    const std::string_view name = t.name();
    const int seen = visible_.find(name);
    if (seen >= 0 && values_[seen].src == Value::Input && values_[seen].graph == g) {
      // An input with a default value (always legal for IR < 4, allowed for IR >= 4).
      Value& v = values_[seen];
      if (!sparse && data_ok && !too_many_dims && t.data_location() != onnx::TensorProto::EXTERNAL) v.data = &t;
      if (!data_ok || too_many_dims) v.tainted = true;
      if (!v.tp) {
        v.tp = &tp;
        v.typed = &uninterned_.emplace_back(converted(tp));
      }
      return;
    }
    Value v;
    v.src = Value::Initializer;
    v.name = name;
    v.tp = &tp;
    if (!sparse && data_ok && !too_many_dims && t.data_location() != onnx::TensorProto::EXTERNAL) v.data = &t;
    v.tainted = !data_ok || too_many_dims;  // its dims are in doubt: what follows from them is not reported again
    define(g, std::move(v), sub);
  };
  for (const auto& t : gp.initializer()) add_init(t, false, nullptr);
  for (const auto& st : gp.sparse_initializer()) {
    // A sparse initializer's name is its values' name; its dims are the SparseTensorProto's.
    onnx::TensorProto& keep = owned_tensors_.emplace_back(st.values());
    keep.clear_dims();
    for (int64_t d : st.dims()) keep.add_dims(d);
    add_init(keep, true, nullptr);
  }
}

Port OnnxBuilder::port_of(std::string_view name, int value_id) const {
  Port p;
  p.id = std::string(name);
  if (value_id >= 0 && values_[value_id].typed) p.set_type(values_[value_id].typed->vt);
  return p;
}

// Node n's inputs: each name resolved in the visible scopes (an undefined one is a problem), its port and source.
void OnnxBuilder::read_inputs(int g, int n, const onnx::NodeProto& np) {
  Node& node = model_->graphs[g].nodes[n];
  input_ids_.clear();
  input_ids_graph_ = g;
  input_ids_node_ = n;
  for (const auto& in : np.input()) {
    int id = -1;
    if (!in.empty()) {
      id = lookup(in);
      if (id < 0) undefined_read(in, g, n, -1, loc(g, n));
    }
    input_ids_.push_back(id);
    node.inputs.push_back(port_of(in, id));
    ValueRef ref;
    if (id >= 0 && values_[id].src == Value::NodeOutput)
      ref = ValueRef{values_[id].graph, values_[id].node, values_[id].output};
    node.sources.push_back(ref);
  }
}

// Node n's graph attributes as graphs of the Model (walked later, in `children`); for an If, its form is checked
// and its branches recorded in `ii`.
void OnnxBuilder::read_subgraphs(int g, int n, const onnx::NodeProto& np, bool is_if, IfInfo& ii,
                                 std::vector<int>& children) {
  for (const auto& a : np.attribute()) {
    const bool branch_name = a.name() == "then_branch" || a.name() == "else_branch";
    std::vector<const onnx::GraphProto*> subs;
    if (a.has_g()) subs.push_back(&a.g());
    for (const auto& sg : a.graphs()) subs.push_back(&sg);
    if (!a.has_g() && a.graphs_size() == 0) continue;
    for (size_t k = 0; k < subs.size(); ++k) {
      Graph sub;
      sub.parent_graph = g;
      sub.parent_node = n;
      sub.role = onnx_role_of_attribute(model_->graphs[g].nodes[n].op, a.name());
      if (subs.size() > 1 || a.graphs_size() > 0) sub.role += "[" + std::to_string(k) + "]";
      sub.depth = model_->graphs[g].depth + 1;
      const int gi = static_cast<int>(model_->graphs.size());
      sub.loc = loc(gi);
      data_->max_depth = std::max(data_->max_depth, sub.depth);
      model_->graphs.push_back(std::move(sub));
      GraphInfo info;
      info.proto = subs[k];
      info.in_function = gi_[g].in_function;
      if (a.has_g() && k == 0) info.holder = const_cast<onnx::AttributeProto*>(&a);  // the builder owns proto_
      if (is_if && branch_name && a.has_g()) {
        const int b = a.name() == "then_branch" ? 0 : 1;
        if (ii.branch[b] < 0) {  // a second one is ONNX003's (OnnxIfForm)
          ii.branch[b] = gi;
          info.is_if_branch = true;
          info.if_branch_index = b;
        }
      }
      gi_.push_back(std::move(info));
      model_->graphs[g].nodes[n].bodies.emplace_back(model_->graphs[gi].role, gi);
      children.push_back(gi);
    }
  }
}

// An If's input count and attributes as written, when they are not the form If has (ONNX003 decides); an error
// there, so onnx's checker is not asked about the node again.
void OnnxBuilder::record_if_form(int g, int n, const onnx::NodeProto& np) {
  OnnxIfForm form;
  form.graph = g;
  form.node = n;
  form.input_count = np.input_size();
  form.loc = loc(g, n);
  for (const auto& a : np.attribute())
    form.attributes.push_back({a.name(), std::string(onnx::AttributeProto::AttributeType_Name(a.type())), a.has_g()});
  if (form.well_formed()) return;
  taint(form.loc);
  data_->if_forms.push_back(std::move(form));
}

void OnnxBuilder::read_node(size_t frame, std::vector<Frame>& stack) {
  Frame& f = stack[frame];
  const int g = f.graph;
  if (g == 0 && stream_ && !parse_root_node(f.next)) {
    stream_failed_ = true;
    return;
  }
  const onnx::NodeProto& np = gi_[g].proto->node(f.next);
  const int n = static_cast<int>(model_->graphs[g].nodes.size());
  {
    Node node;
    node.id = std::to_string(f.next);
    node.op = np.op_type();
    node.name = np.name().empty() ? node.op + "#" + node.id : np.name();  // as the executor names it
    const std::string& dom = np.domain();
    node.version = texts_.get(dom.empty() ? std::string_view("ai.onnx") : std::string_view(dom));
    node.loc = loc(g, n);
    node.inputs.reserve(np.input_size());
    node.sources.reserve(np.input_size());
    model_->graphs[g].nodes.push_back(std::move(node));
  }
  read_inputs(g, n, np);
  // Subgraphs: If branches, Loop / Scan bodies, and graph attributes of any other op.
  const bool is_if = np.op_type() == "If" && (np.domain().empty() || np.domain() == "ai.onnx");
  std::vector<int> children;
  IfInfo ii;
  if (is_if) {
    ii.graph = g;
    ii.node = n;
    record_if_form(g, n, np);
    if (np.input_size() >= 1 && !np.input(0).empty()) {
      ii.has_cond_name = true;
      ii.cond_value = lookup(np.input(0));
    }
  }
  read_subgraphs(g, n, np, is_if, ii, children);
  if (np.op_type() == "Constant") {
    for (const auto& a : np.attribute())
      if (a.has_t()) check_external(a.t(), g, n, node_label(g, n) + " value");
  }
  if (is_if) {
    if_at_.emplace(int64_t(g) << 32 | n, static_cast<int>(ifs_.size()));
    ifs_.push_back(ii);
  }
  if (const Judge& j = judge(np); j.kind == Judge::Facts) ++data_->facts_judged_nodes;
  else if (j.kind == Judge::Unjudged)
    ++data_->unjudged_ops[np.domain().empty() || np.domain() == "ai.onnx" ? np.op_type()
                                                                          : np.domain() + "." + np.op_type()];
  checker_node(g, n, np);
  ++f.next;
  if (children.empty()) {
    finish_node(g, n);
    return;
  }
  f.pending = n;  // f is not used after the pushes below (they may move the stack)
  // Walk the subgraphs now, while the scope holds exactly the names defined before this node.
  for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(Frame{*it});
}

CondValue OnnxBuilder::cond_value(const std::string& nm, const OnnxBranchFollow::World* world) const {
  CondValue cv;
  const int id = lookup(nm);
  if (id < 0) return cv;
  const Value& v = values_[id];
  cv.kind = v.src == Value::Input         ? CondValue::Kind::GraphInput
            : v.src == Value::Initializer ? CondValue::Kind::Initializer
                                          : CondValue::Kind::NodeOutput;
  if (v.src == Value::NodeOutput) cv.producer = &gi_[v.graph].proto->node(v.node);
  cv.data = v.data;
  if (world) cv.shape = world->tp ? onnx_shape(*world->tp) : Shape::unknown();
  else if (!v.tainted) cv.shape = v.shape();
  return cv;
}

InputState OnnxBuilder::input_state(int g, int n, const onnx::NodeProto& np) const {
  InputState st;
  for (int i = 0; i < np.input_size(); ++i) {
    if (np.input(i).empty()) continue;
    const int id = input_id(g, n, np, i);
    if (id < 0) {  // an undefined name (ONNX009): reported at this node
      st.tainted = true;
      continue;
    }
    const Value& v = values_[id];
    // An integer constant of an enclosing graph (the shapes, axes, pads and sizes that shape inference reads):
    // condlint's inference reads its data, onnx's inference of a subgraph only its type.
    const bool outer_shape_data =
        v.data && v.graph != g &&
        (v.data->data_type() == onnx::TensorProto::INT64 || v.data->data_type() == onnx::TensorProto::INT32);
    if (v.beyond_onnx || outer_shape_data) st.beyond_onnx = true;
    if (v.tainted) st.tainted = true;
    else if (!v.tp && st.unknown_root == -2) st.unknown_root = v.unknown_root;
  }
  return st;
}

const onnx::TypeProto* OnnxBuilder::branch_output_type(int bg, int k, bool* tainted) const {
  const auto& decl = gi_[bg].proto->output();
  const auto& outs = gi_[bg].output_values;
  if (k >= decl.size()) return nullptr;
  const onnx::TypeProto* inferred = nullptr;
  if (k < static_cast<int>(outs.size()) && outs[k] >= 0) {
    inferred = values_[outs[k]].tp;
    if (values_[outs[k]].tainted && tainted) *tainted = true;
  }
  if (decl[k].has_type() && decl[k].type().value_case() != onnx::TypeProto::VALUE_NOT_SET) {
    if (const auto* t = declared_of(decl[k], bg)) return t;
    if (tainted) *tainted = true;  // past a limit, reported once
    return nullptr;
  }
  return inferred;
}

// The union of two types, interned; null when either is unknown or nothing sound can be said of both.
const onnx::TypeProto* OnnxBuilder::union_of(const onnx::TypeProto* a, const onnx::TypeProto* b) {
  if (!a || !b) return nullptr;
  if (a == b) return a;
  if (onnx_type_depth(*a) > kMaxInferTypeDepth || onnx_type_depth(*b) > kMaxInferTypeDepth) return nullptr;
  onnx::TypeProto u;
  if (!union_onnx_types(*a, *b, u)) return nullptr;
  return intern(u).tp;
}

void OnnxBuilder::infer_control_flow(int g, int n, const onnx::NodeProto& np, std::vector<const onnx::TypeProto*>& out,
                                     std::vector<char>& tainted, bool& beyond_onnx) {
  const bool default_domain = np.domain().empty() || np.domain() == "ai.onnx";
  if (!default_domain) return;
  // onnx infers an If's outputs as the union of its branches, as below; a Loop's or a Scan's less than condlint does.
  beyond_onnx = !if_at_.count(int64_t(g) << 32 | n);
  if (auto at = if_at_.find(int64_t(g) << 32 | n); at != if_at_.end()) {
    // If: an output is what both branches can give (onnx's UnionShapeInfo), never one branch's type; when the
    // condition is decided for every input the declared types allow, what the live branch gives.
    IfInfo& ii = ifs_[at->second];
    if (ii.has_cond_name && ii.cond_value >= 0)
      ii.provenance = trace_condition(np.input(0), [this](const std::string& nm) { return cond_value(nm); });
    if (ii.branch[0] < 0 || ii.branch[1] < 0) return;
    const int live = ii.provenance.decided == 1 ? 0 : ii.provenance.decided == 0 ? 1 : -1;
    beyond_onnx = live >= 0;  // one branch's type where onnx has the union
    for (int bg : ii.branch)
      for (int id : gi_[bg].output_values) beyond_onnx = beyond_onnx || (id >= 0 && values_[id].beyond_onnx);
    for (int k = 0; k < np.output_size(); ++k) {
      bool t = false;
      const onnx::TypeProto* a = branch_output_type(ii.branch[0], k, &t);
      const onnx::TypeProto* b = branch_output_type(ii.branch[1], k, &t);
      out[k] = live == 0 ? a : live == 1 ? b : union_of(a, b);
      tainted[k] = t;
    }
    return;
  }
  const auto& bodies = model_->graphs[g].nodes[n].bodies;
  if (bodies.size() != 1 || bodies[0].first != "body") return;
  const int bg = bodies[0].second;
  auto input_type = [&](int i) -> const onnx::TypeProto* {
    if (i >= np.input_size() || np.input(i).empty()) return nullptr;
    const int id = lookup(np.input(i));
    return id >= 0 && !values_[id].tainted ? values_[id].tp : nullptr;
  };
  auto body_out = [&](int k) -> const onnx::TypeProto* {
    bool t = false;
    const onnx::TypeProto* tp = branch_output_type(bg, k, &t);
    return t ? nullptr : tp;
  };
  // A tensor type with one more leading dim of unknown size (a scan output stacks one value per iteration).
  auto stacked = [&](const onnx::TypeProto* tp) -> const onnx::TypeProto* {
    if (!tp || tp->value_case() != onnx::TypeProto::kTensorType || tp->tensor_type().elem_type() == 0) return nullptr;
    onnx::TypeProto s;
    s.mutable_tensor_type()->set_elem_type(tp->tensor_type().elem_type());
    if (tp->tensor_type().has_shape()) {
      auto* sh = s.mutable_tensor_type()->mutable_shape();
      sh->add_dim();
      for (const auto& d : tp->tensor_type().shape().dim()) *sh->add_dim() = d;
    }
    return intern(s).tp;
  };
  if (np.op_type() == "Loop") {
    // Inputs: M, cond, v_initial[N]; body outputs: cond, v_final[N], scan[K]; node outputs: v_final[N], scan[K].
    // A loop-carried value is its initial value (no iteration) or the body's output (some iterations).
    const int carried = std::max(0, np.input_size() - 2);
    // The body's formal inputs (iteration number, condition, the carried values) take what the Loop passes, as
    // onnx's Loop inference binds them: their count and declared types must agree.
    const auto& formal = gi_[bg].proto->input();
    const bool in_tainted = input_state(g, n, np).tainted;
    std::string bad;
    if (formal.size() != 2 + carried) {
      bad = "the body has " + std::to_string(formal.size()) + " inputs but the Loop passes " +
            std::to_string(2 + carried) + " (iteration number, condition and " + std::to_string(carried) +
            " loop-carried value" + (carried == 1 ? ")" : "s)");
    } else {
      onnx::TypeProto fixed[2], scratch;
      fixed[0].mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
      fixed[1].mutable_tensor_type()->set_elem_type(onnx::TensorProto::BOOL);
      for (int k = 0; k < formal.size() && bad.empty(); ++k) {
        // M and cond as given (their types reach the body), else what the body receives when they are omitted.
        const onnx::TypeProto* given = input_type(k);
        const onnx::TypeProto* passed = k < 2 && !given ? &fixed[k] : given;
        if (!passed || !formal[k].has_type() || formal[k].type().value_case() == onnx::TypeProto::VALUE_NOT_SET)
          continue;
        if (onnx_type_depth(*passed) > kMaxInferTypeDepth || onnx_type_depth(formal[k].type()) > kMaxInferTypeDepth ||
            onnx_max_rank(formal[k].type()) > kMaxRank)
          continue;
        // Shapes: the body's declaration must admit what is passed (a dim may differ between iterations, so only
        // the element type and kind are compared for carried values, as onnx does).
        onnx::TypeProto a = *passed, b = formal[k].type();
        if (a.has_tensor_type()) a.mutable_tensor_type()->clear_shape();
        if (b.has_tensor_type()) b.mutable_tensor_type()->clear_shape();
        if (!refine_onnx_type(a, b, scratch))
          bad = "body input " + std::to_string(k) + " " + qname(formal[k].name()) + " is declared " +
                onnx_type_desc(formal[k].type()).str() + " but the Loop passes " + onnx_type_desc(*passed).str();
      }
    }
    if (!bad.empty()) std::fill(tainted.begin(), tainted.end(), 1);
    if (!bad.empty() && !in_tainted)
      problem(PKind::InferenceFailed,
              node_label(g, n) + " in " + where(g) + " is invalid: onnx's Loop inference fails: " + bad, loc(g, n));
    for (int k = 0; k < np.output_size(); ++k) {
      if (k < carried) out[k] = union_of(input_type(k + 2), body_out(k + 1));
      else out[k] = stacked(body_out(k + 1));
    }
  } else if (np.op_type() == "Scan") {
    // Inputs: states[N], scan inputs; body outputs: states[N], scan outputs; a scan output's stacked axis may be
    // moved (scan_output_axes): its shape is then left unknown.
    int num_scan_inputs = -1;
    bool axes = false;
    for (const auto& a : np.attribute()) {
      if (a.name() == "num_scan_inputs") num_scan_inputs = static_cast<int>(a.i());
      if (a.name() == "scan_output_axes") axes = true;
    }
    if (num_scan_inputs < 0 || num_scan_inputs > np.input_size()) return;
    const int states = np.input_size() - num_scan_inputs;
    for (int k = 0; k < np.output_size(); ++k) {
      if (k < states) {
        out[k] = union_of(input_type(k), body_out(k));
      } else if (const onnx::TypeProto* b = body_out(k);
                 b && b->value_case() == onnx::TypeProto::kTensorType && b->tensor_type().elem_type() != 0) {
        if (!axes) {
          out[k] = stacked(b);
        } else {
          onnx::TypeProto e;
          e.mutable_tensor_type()->set_elem_type(b->tensor_type().elem_type());
          out[k] = intern(e).tp;
        }
      }
    }
  }
}

// Types the outputs of node n (inferred, refined by what the file declares where the two agree) and defines them in
// graph g's scope.
void OnnxBuilder::finish_node(int g, int n) {
  const onnx::NodeProto& np = gi_[g].proto->node(n);
  std::vector<const onnx::TypeProto*>& inferred = inferred_scratch_;  // finish_node does not nest
  inferred.assign(static_cast<size_t>(np.output_size()), nullptr);
  const InputState in = input_state(g, n, np);
  std::vector<char> tainted(static_cast<size_t>(np.output_size()), in.tainted ? 1 : 0);
  const bool has_bodies = !model_->graphs[g].nodes[n].bodies.empty();
  bool beyond_onnx = in.beyond_onnx;
  bool failed = in.tainted;
  if (!has_bodies) {
    bool call_failed = false;
    if (type_call(g, n, np, in, inferred, call_failed) ? call_failed : infer(g, n, np, in, inferred)) failed = true;
    if (failed) std::fill(tainted.begin(), tainted.end(), 1);
  } else {
    infer_control_flow(g, n, np, inferred, tainted, beyond_onnx);
  }
  const int64_t here = int64_t(g) << 32 | n;
  Node& node = model_->graphs[g].nodes[n];
  node.outputs.reserve(np.output_size());
  onnx::TypeProto refined;
  for (int k = 0; k < np.output_size(); ++k) {
    const std::string& name = np.output(k);
    const onnx::TypeProto* decl = name.empty() ? nullptr : declared_type(g, name);
    const onnx::TypeProto* type = decl ? decl : inferred[k];
    bool bad = tainted[k] != 0;
    // An If's declared outputs are compared with its branches by the generic rules (C007, C010).
    // (Sequences and optionals are compared here: those rules see only a tensor's shape.)
    const bool is_if =
        has_bodies && if_at_.count(here) && decl && (decl->has_tensor_type() || decl->has_sparse_tensor_type());
    if (decl && inferred[k] && !name.empty() && decl != inferred[k] && !is_if) {
      const TypeDesc dt = onnx_type_desc(*decl), it = onnx_type_desc(*inferred[k]);
      const Shape ds = onnx_shape(*decl), is = onnx_shape(*inferred[k]);
      using Differs = OnnxDeclaredVsComputed::Differs;
      std::optional<OnnxDeclaredVsComputed> c;
      auto differs = [&](Differs d, std::string declared, std::string computed) {
        c.emplace();
        c->differs = d;
        c->declared = std::move(declared);
        c->computed = std::move(computed);
      };
      if (!same_type(dt, it)) {
        differs(Differs::Type, dt.str(), it.str());
      } else if (!compatible(ds, is)) {
        differs(Differs::Shape, ds.str(), is.str());
      } else if (onnx_type_depth(*decl) <= kMaxInferTypeDepth && onnx_type_depth(*inferred[k]) <= kMaxInferTypeDepth &&
                 !refine_onnx_type(*inferred[k], *decl, refined)) {
        differs(Differs::ElementShape, dt.str(), it.str());
        c->declared_element_shape = inner_shape_str(*decl);
        c->computed_element_shape = inner_shape_str(*inferred[k]);
      }
      if (c) {
        c->graph = g;
        c->node = n;
        c->output = k;
        c->name = name;
        c->rests_on_reported = bad;  // one root cause, one finding: ONNX007 leaves these out
        c->beyond_onnx = beyond_onnx;
        c->loc = loc(g, n);
        data_->declared_vs_computed.push_back(std::move(*c));
        type = inferred[k];
        bad = true;
      } else if (onnx_type_depth(*decl) <= kMaxInferTypeDepth && onnx_type_depth(*inferred[k]) <= kMaxInferTypeDepth &&
                 refine_onnx_type(*inferred[k], *decl, refined)) {
        type = intern(refined).tp;
      }
    }
    int id = -1;
    if (!name.empty()) {
      Value v;
      v.src = Value::NodeOutput;
      v.node = n;
      v.output = k;
      v.name = name;
      v.tp = type;
      v.tainted = bad;
      v.beyond_onnx = beyond_onnx;
      if (!type && !bad) v.unknown_root = in.unknown_root != -2 ? in.unknown_root : here;
      if (np.op_type() == "Constant" && k == 0)
        for (const auto& a : np.attribute())
          if (a.name() == "value" && a.has_t() && a.t().data_location() != onnx::TensorProto::EXTERNAL) {
            if (tensor_data_ok(a.t(), g, n, "")) v.data = &a.t();
            else v.tainted = true;
          }
      id = define(g, std::move(v), g > 0);
    }
    model_->graphs[g].nodes[n].outputs.push_back(port_of(name, id));
  }
  (void)node;
  if (const auto at = if_at_.find(here); at != if_at_.end()) build_view(static_cast<size_t>(at->second));
  follow_branches(g, n, np, failed);
}

void OnnxBuilder::follow_branches(int g, int n, const onnx::NodeProto& np, bool settled) {
  using Follow = OnnxBranchFollow;
  if (const auto at = if_at_.find(int64_t(g) << 32 | n); at != if_at_.end()) {
    const IfInfo& ii = ifs_[at->second];
    if (ii.branch[0] < 0 || ii.branch[1] < 0) return;
    std::vector<std::array<Follow::BranchOutput, 2>> outs(static_cast<size_t>(np.output_size()));
    for (int k = 0; k < np.output_size(); ++k)
      for (int b = 0; b < 2; ++b) {
        Follow::BranchOutput& o = outs[static_cast<size_t>(k)][static_cast<size_t>(b)];
        bool t = false;
        const onnx::TypeProto* tp = branch_output_type(ii.branch[b], k, &t);
        o.tp = t || !tp || onnx_type_depth(*tp) > kMaxInferTypeDepth ? nullptr : tp;
        const auto& ov = gi_[ii.branch[b]].output_values;
        if (k < static_cast<int>(ov.size()) && ov[k] >= 0 && values_[ov[k]].src == Value::NodeOutput) {
          o.graph = values_[ov[k]].graph;
          o.node = values_[ov[k]].node;
          o.output = values_[ov[k]].output;
        }
      }
    const int live = ii.provenance.decided == 1 ? 0 : ii.provenance.decided == 0 ? 1 : -1;
    // A condition that reads values whose types differ between earlier branches (a rank guard on an earlier guard's
    // output) is traced again under each case of those branches: a case may decide it.
    std::vector<Follow::CaseLive> cases;
    bool opaque = false;
    if (follow_->active() && live < 0 && ii.has_cond_name && ii.cond_value >= 0) {
      auto as_traced = [this](const std::string& nm, const Follow::World* w) { return cond_value(nm, w); };
      std::vector<std::string> names;
      std::vector<const std::vector<Follow::World>*> lists;
      (void)trace_condition(np.input(0), [&](const std::string& nm) {
        const int id = lookup(nm);
        if (id >= 0 && values_[id].src == Value::NodeOutput)
          if (const auto* f = follow_->facts_at(values_[id].graph, values_[id].node, values_[id].output)) {
            names.push_back(nm);
            lists.push_back(f);
          }
        return as_traced(nm, nullptr);
      });
      std::vector<std::pair<std::vector<Follow::Pick>, std::vector<int>>> found;
      if (!lists.empty() && !follow_->cases_of(lists, found)) opaque = true;
      for (size_t c = 0; !lists.empty() && !opaque && c < found.size(); ++c) {
        const ConditionProvenance p = trace_condition(np.input(0), [&](const std::string& nm) {
          for (size_t j = 0; j < names.size(); ++j)
            if (names[j] == nm) return as_traced(nm, &(*lists[j])[static_cast<size_t>(found[c].second[j])]);
          return as_traced(nm, nullptr);
        });
        cases.push_back({found[c].first, p.decided == 1 ? 0 : p.decided == 0 ? 1 : -1});
      }
    }
    follow_->if_finished(at->second, g, n, live, ii.provenance.traced ? ii.provenance.text : std::string(), outs, cases,
                         opaque);
    return;
  }
  if (!follow_->active() || !model_->graphs[g].nodes[n].bodies.empty()) return;
  std::vector<Follow::Input> inputs(static_cast<size_t>(np.input_size()));
  for (int i = 0; i < np.input_size(); ++i) {
    if (np.input(i).empty()) continue;
    const int id = input_id(g, n, np, i);
    if (id < 0) return;  // an undefined name: ONNX009's
    const Value& v = values_[id];
    Follow::Input& in = inputs[static_cast<size_t>(i)];
    if (v.src == Value::NodeOutput) {
      in.graph = v.graph;
      in.node = v.node;
      in.output = v.output;
    }
    in.tp = v.tainted ? nullptr : v.tp;
    in.data = v.data;
  }
  const std::string domain = np.domain() == "ai.onnx" ? std::string() : np.domain();
  const auto op = data_->opsets.find(domain);
  follow_->node_finished(g, n, np, inputs, op == data_->opsets.end() ? -1 : op->second, judge(np).kind == Judge::Linked,
                         settled);
}

bool OnnxBuilder::infer(int g, int n, const onnx::NodeProto& np, const InputState& in,
                        std::vector<const onnx::TypeProto*>& out_types) {
  // Never an older definition's inference for a node whose opset selects a newer one.
  if (const Judge& j = judge(np); j.kind != Judge::Linked) {
    if (j.kind == Judge::Facts) return facts_infer(g, n, np, in, *j.facts, out_types);
    uninferred_roots_.insert(int64_t(g) << 32 | n);
    return false;
  }
  const std::string& dom = np.domain();
  const std::string domain = dom == "ai.onnx" ? std::string() : dom;
  auto op = data_->opsets.find(domain);
  if (op == data_->opsets.end()) return false;
  // One registry lookup (and one copy of the inference function) per op type, not per node.
  std::string key = np.op_type();
  key += '\0';
  key += domain;
  auto cached = schema_cache_.find(key);
  if (cached == schema_cache_.end()) {
    const onnx::OpSchema* sc = onnx::OpSchemaRegistry::Schema(np.op_type(), static_cast<int>(op->second), domain);
    CachedSchema c{sc, {}, nullptr};
    if (sc && sc->has_type_and_shape_inference_function()) c.fn = sc->GetTypeAndShapeInferenceFunction();
    else if (sc && sc->HasFunction()) c.body = sc->GetFunction();  // GreaterOrEqual-12 and the like
    cached = schema_cache_.emplace(std::move(key), std::move(c)).first;
  }
  const onnx::OpSchema* schema = cached->second.schema;
  if (!schema || (!cached->second.fn && !cached->second.body)) return false;
  NodeContext& ctx = ctx_;
  ctx.reset(np);
  const Node& node = model_->graphs[g].nodes[n];
  ctx.in_types.reserve(np.input_size());
  for (int i = 0; i < np.input_size(); ++i) {
    if (np.input(i).empty()) {
      ctx.in_types.push_back(nullptr);
      ctx.in_data.push_back(nullptr);
      continue;
    }
    const int id = input_id(g, n, np, i);
    if (id < 0 || !values_[id].tp) return false;  // an input of unknown type: nothing to infer from
    if (onnx_type_depth(*values_[id].tp) > kMaxInferTypeDepth) return false;  // onnx copies types recursively
    ctx.in_types.push_back(values_[id].tp);
    ctx.in_data.push_back(values_[id].data);
  }
  // The cache key: attributes that hold tensors or graphs make a node its own pattern (and a long key).
  bool cacheable = true;
  for (const auto& a : np.attribute())
    if (!a.ref_attr_name().empty()) {
      // A function's attribute its calls do not agree on: the operator would read its own default instead.
      uninferred_roots_.insert(int64_t(g) << 32 | n);
      return false;
    }
  for (const auto& a : np.attribute())
    if (a.has_t() || a.has_g() || a.has_sparse_tensor() || a.tensors_size() || a.graphs_size() ||
        a.sparse_tensors_size())
      cacheable = false;
  if (cacheable) {
    auto put = [this](const void* p) { infer_key_.append(reinterpret_cast<const char*>(&p), sizeof p); };
    infer_key_.clear();
    put(schema);
    put(reinterpret_cast<const void*>(ctx.n_out));
    for (size_t i = 0; i < ctx.in_types.size(); ++i) {
      put(ctx.in_types[i]);
      put(ctx.in_data[i]);
    }
    for (const auto& a : np.attribute()) {
      const size_t at = infer_key_.size();
      infer_key_.append(sizeof(size_t), '\0');
      a.AppendToString(&infer_key_);
      const size_t len = infer_key_.size() - at - sizeof(size_t);
      infer_key_.replace(at, sizeof(size_t), reinterpret_cast<const char*>(&len), sizeof len);
    }
    if (auto hit = inferred_.find(infer_key_); hit != inferred_.end()) {
      for (size_t k = 0; k < hit->second.size() && k < out_types.size(); ++k) out_types[k] = hit->second[k];
      return false;
    }
  }
  const char* step = "inference";
  try {
    if (cached->second.fn) {
      cached->second.fn(ctx);
    } else {
      // No inference function: onnx infers through the function body, and so does condlint.
      onnx::shape_inference::InferShapeForFunctionNode(*cached->second.body, onnx::OpSchemaRegistry::Instance(), ctx);
    }
    // The schema's type constraints, as onnx's strict inference checks them. Only for inputs of at most two levels
    // (tensor, sequence of tensor): onnx's check files every type string it sees in a process-wide table.
    bool shallow = true;
    for (const auto* t : ctx.in_types)
      if (t && onnx_type_depth(*t) > 2) shallow = false;
    if (shallow) {
      step = "type check";
      schema->CheckInputOutputType(ctx);
    }
  } catch (const std::exception& e) {
    // One root cause, one finding: a failure that rests on a reported problem is its consequence.
    if (!in.tainted) {
      std::string msg = e.what();
      if (auto cut = msg.find("\n"); cut != std::string::npos) msg.resize(cut);
      problem(PKind::InferenceFailed,
              node.op + " " + qname(node.name) + " in " + where(g) + " is invalid: onnx's " + np.op_type() + "-" +
                  std::to_string(schema->SinceVersion()) + " " + step + " fails: " + msg,
              loc(g, n));
    } else if (detached_failure_ && detached_failure_->empty()) {
      std::string msg = e.what();
      if (auto cut = msg.find("\n"); cut != std::string::npos) msg.resize(cut);
      *detached_failure_ = np.op_type() + " " + qname(np.name()) + ": onnx's " + np.op_type() + "-" +
                           std::to_string(schema->SinceVersion()) + " " + step + " fails: " + msg;
    }
    return true;
  }
  std::vector<const onnx::TypeProto*> result(ctx.n_out, nullptr);
  for (size_t k = 0; k < ctx.n_out; ++k)
    if (ctx.out[k]->value_case() != onnx::TypeProto::VALUE_NOT_SET) result[k] = intern(*ctx.out[k]).tp;
  for (size_t k = 0; k < result.size() && k < out_types.size(); ++k) out_types[k] = result[k];
  if (cacheable) inferred_.emplace(infer_key_, std::move(result));
  return false;
}

void OnnxBuilder::end_graph(int g) {
  GraphInfo& info = gi_[g];
  const auto& outs = info.proto->output();
  info.output_values.assign(outs.size(), -1);
  for (int k = 0; k < outs.size(); ++k) {
    const std::string& name = outs[k].name();
    const int id = name.empty() ? -1 : lookup(name);
    info.output_values[k] = id;
    if (id < 0) {
      undefined_read(name, g, -1, k, loc(g));
      continue;
    }
    const Value& v = values_[id];
    if (g > 0 && v.graph != g) {
      taint(loc(g));  // ONNX012 reports it
      data_->outer_outputs.push_back({g, k, name, v.graph, loc(g)});
    }
    const bool declared = outs[k].has_type() && outs[k].type().value_case() != onnx::TypeProto::VALUE_NOT_SET;
    // Never when it rests on a reported problem (one root cause, one finding).
    if (info.is_if_branch && !declared && !v.tp && !v.tainted && !uninferred_roots_.count(v.unknown_root)) {
      OnnxUnknownOutput u{g, k, name, -1, -1, {}, loc(g)};
      if (v.unknown_root >= 0) {
        u.root_graph = static_cast<int>(v.unknown_root >> 32);
        u.root_node = static_cast<int>(v.unknown_root & 0xffffffff);
        u.root_domain = gi_[u.root_graph].proto->node(u.root_node).domain();
      }
      data_->unknown_outputs.push_back(std::move(u));
    }
  }
}

void OnnxBuilder::leave_graph(int g) {
  auto& defs = gi_[g].defs;
  for (auto it = defs.rbegin(); it != defs.rend(); ++it) {
    const Value& v = values_[*it];
    if (v.hides >= 0) visible_.assign(v.name, v.hides);
    else visible_.erase(v.name);
  }
  // A subgraph's values are recycled when its node is finished and the graph freed (release_subgraphs).
  if (g == 0 || !release_walked_) std::vector<int>().swap(defs);
}

ValueDesc OnnxBuilder::desc_of(int value_id, const std::string& label) const {
  ValueDesc d;
  d.label = label;
  if (value_id < 0) return d;
  const Value& v = values_[value_id];
  d.present = true;
  // A type that rests on a reported problem is not compared again by the generic rules (one root cause, one finding).
  if (!v.tainted) {
    d.type = v.type();
    d.shape = v.shape();
  }
  d.loc = loc(v.graph, v.src == Value::NodeOutput ? v.node : -1);
  return d;
}

void OnnxBuilder::build_view(size_t index) {
  const IfInfo& ii = ifs_[index];
  if (view_built_.size() <= index) view_built_.resize(index + 1);
  const Node& node = model_->graphs[ii.graph].nodes[ii.node];
  ConditionalView view;
  view.graph = ii.graph;
  view.node = ii.node;
  view.name = "If " + qname(node.name);
  view.loc = node.loc;
  if (ii.has_cond_name && ii.cond_value >= 0) {
    const Value& v = values_[ii.cond_value];
    std::string label = v.src == Value::Input ? "graph input " + qname(v.name)
                        : v.src == Value::Initializer
                            ? "initializer " + qname(v.name)
                            : "output " + qname(v.name) + " of " + node_label(v.graph, v.node);
    view.has_condition = true;
    view.condition = desc_of(ii.cond_value, label);
    view.condition.loc = node.loc;
  }
  const onnx::NodeProto& np = gi_[ii.graph].proto->node(ii.node);
  for (int j = 0; j < np.output_size(); ++j) {
    ValueDesc d;
    d.present = true;
    d.label = "If output " + std::to_string(j) + " " + qname(np.output(j));
    d.loc = node.loc;
    if (const onnx::TypeProto* t = np.output(j).empty() ? nullptr : declared_type(ii.graph, np.output(j))) {
      d.type = onnx_type_desc(*t);
      d.shape = onnx_shape(*t);
    }
    view.outputs.push_back(std::move(d));
  }
  for (int b = 0; b < 2; ++b) {
    BranchView& br = view.branch[b];
    br.name = b == 0 ? "then" : "else";
    br.graph = ii.branch[b];
    if (br.graph < 0) continue;
    const GraphInfo& info = gi_[br.graph];
    const auto& outs = info.proto->output();
    for (int k = 0; k < outs.size(); ++k) {
      OutputBinding ob;
      ob.output_index = k;
      ob.loc = loc(br.graph);
      const onnx::TypeProto* tp = nullptr;
      const bool disputed = info.output_values[k] >= 0 && values_[info.output_values[k]].tainted;
      if (disputed) tp = nullptr;  // already reported where it starts (ONNX007, ONNX008, ONNX018)
      else if (outs[k].has_type() && outs[k].type().value_case() != onnx::TypeProto::VALUE_NOT_SET)
        tp = declared_of(outs[k], br.graph);
      else if (info.output_values[k] >= 0) tp = values_[info.output_values[k]].tp;
      ob.value.present = true;
      ob.value.label = (b == 0 ? "then_branch output " : "else_branch output ") + qname(outs[k].name());
      ob.value.loc = loc(br.graph);
      if (tp) {
        ob.value.type = onnx_type_desc(*tp);
        ob.value.shape = onnx_shape(*tp);
        data_->branch_output_types.push_back({static_cast<int>(index), b, k, onnx_type_string(*tp)});
      }
      br.outputs.push_back(std::move(ob));
    }
  }
  view.provenance = ii.provenance;
  if (model_->conditionals.size() <= index) model_->conditionals.resize(index + 1);
  model_->conditionals[index] = std::move(view);
  view_built_[index] = 1;
}

void OnnxBuilder::build_views() {
  const Judge if_judge = onnx_opset_ > 0 ? judge_at("If", "", onnx_opset_) : Judge{};
  if (if_judge.kind == Judge::Facts && if_judge.facts->outputs.count > 0) {
    const std::string_view param = schema_facts::output(*if_judge.facts, 0).type_str;
    for (int c = 0; c < if_judge.facts->constraints.count; ++c) {
      const auto& tc = schema_facts::constraint(*if_judge.facts, c);
      if (param != tc.name) continue;
      const std::string_view all = schema_facts::allowed_types(tc);
      for (size_t at = 0; at <= all.size();) {
        const size_t end = std::min(all.find(';', at), all.size());
        data_->if_allowed_types.emplace(all.substr(at, end - at));
        at = end + 1;
      }
    }
  }
  const onnx::OpSchema* schema = onnx_opset_ > 0 && if_judge.kind == Judge::Linked
                                     ? onnx::OpSchemaRegistry::Schema("If", static_cast<int>(onnx_opset_), "")
                                     : nullptr;
  if (schema && !schema->outputs().empty()) {
    const std::string& param = schema->outputs()[0].GetTypeStr();
    for (const auto& c : schema->typeConstraintParams())
      if (c.type_param_str == param)
        data_->if_allowed_types.insert(c.allowed_type_strs.begin(), c.allowed_type_strs.end());
  }
  // An If the walk never finished (none today) gets its view here; the views are in the order the Ifs were read.
  view_built_.resize(ifs_.size());
  for (size_t i = 0; i < ifs_.size(); ++i)
    if (!view_built_[i]) build_view(i);
  std::stable_sort(
      data_->branch_output_types.begin(), data_->branch_output_types.end(),
      [](const OnnxBranchOutputType& x, const OnnxBranchOutputType& y) { return x.conditional < y.conditional; });
}

void OnnxBuilder::release_subgraphs(int g, int n) {
  if (!release_walked_) return;
  const onnx::NodeProto& np = gi_[g].proto->node(n);
  // An output whose type could not be interned (nested too deep) may point into a subgraph: keep them all.
  for (const std::string& name : np.output()) {
    const int id = name.empty() ? -1 : lookup(name);
    if (id >= 0 && values_[id].graph == g && values_[id].node == n && values_[id].tp &&
        !interned_.count(values_[id].tp))
      return;
  }
  std::vector<const onnx::AttributeProto*> emptied;
  for (const auto& [role, sub] : model_->graphs[g].nodes[n].bodies) {
    GraphInfo& info = gi_[sub];
    if (!info.holder || !info.proto) continue;
    // Addresses in it may be handed out again: the over-limit records it keyed must not match what comes next.
    for (const auto* list : {&info.proto->input(), &info.proto->output(), &info.proto->value_info()})
      for (const auto& vi : *list) over_limit_seen_.erase(&vi.type());
    for (const auto& t : info.proto->initializer()) over_limit_seen_.erase(&t);
    info.proto = nullptr;
    // Its values are out of scope and nothing reads them again: their slots serve the values defined next.
    free_values_.insert(free_values_.end(), info.defs.begin(), info.defs.end());
    std::vector<int>().swap(info.defs);
    std::vector<int>().swap(info.output_values);
    std::vector<const onnx::ValueInfoProto*>().swap(info.declared_list);
    std::unordered_map<std::string_view, const onnx::ValueInfoProto*>().swap(info.declared);
    info.holder->set_allocated_g(nullptr);  // deletes it; its own subgraphs went when their nodes finished
    emptied.push_back(info.holder);
    info.holder = nullptr;
  }
  // The main graph's nodes live until the walk ends (a later condition may be traced through them): the attributes
  // whose graphs went are removed from them too (a few hundred bytes each; nothing reads a graph attribute again).
  if (g != 0 || emptied.empty()) return;
  auto& attrs = *proto_->mutable_graph()->mutable_node(n)->mutable_attribute();
  for (int i = attrs.size(); i-- > 0;)
    if (std::find(emptied.begin(), emptied.end(), &attrs[i]) != emptied.end()) attrs.DeleteSubrange(i, 1);
}

// The main graph's nodes live until the walk ends, while the subgraphs under them are freed as it goes. As parsed,
// their messages sit among those of the subgraphs parsed between them, and an allocator gives a page back for
// other sizes only when its last block is freed: a few live messages would hold every page of the subgraphs.
// Copied to fresh memory (their subgraphs moved, not copied), they leave those pages to the Model built next.
void OnnxBuilder::compact_root_nodes() {
  auto& nodes = *proto_->mutable_graph()->mutable_node();
  std::vector<onnx::GraphProto*> taken;
  std::vector<google::protobuf::RepeatedPtrField<onnx::GraphProto>> taken_lists;
  for (auto& np : nodes) {
    const auto na = static_cast<size_t>(np.attribute_size());
    taken.assign(na, nullptr);
    taken_lists.clear();
    taken_lists.resize(na);
    for (size_t i = 0; i < na; ++i) {
      auto* a = np.mutable_attribute(static_cast<int>(i));
      if (a->has_g()) taken[i] = a->release_g();
      taken_lists[i].Swap(a->mutable_graphs());
    }
    onnx::NodeProto fresh(np);
    for (size_t i = 0; i < na; ++i) {
      auto* a = fresh.mutable_attribute(static_cast<int>(i));
      if (taken[i]) a->set_allocated_g(taken[i]);
      a->mutable_graphs()->Swap(&taken_lists[i]);
    }
    np.Swap(&fresh);  // `np` keeps its address and takes the fresh memory; the parsed copy goes with `fresh`
  }
}

void OnnxBuilder::checker_problem(int g, int n, const std::string& what, const std::string& why) {
  if (error_at_.count(int64_t(g) << 32 | static_cast<uint32_t>(n))) return;
  std::string reason = why;
  if (auto cut = reason.find('\n'); cut != std::string::npos) reason.resize(cut);
  while (!reason.empty() && (reason.back() == ' ' || reason.back() == ':')) reason.pop_back();
  problem(PKind::CheckerRejects, what + ": " + reason, loc(g, n));
}

void OnnxBuilder::checker_model() {
  const onnx::ModelProto& m = *proto_;
  const int64_t ir = m.ir_version();
  // An IR version above onnx's own is ONNX016's note, not an error: a newer onnx accepts such models.
  if (ir == 0) checker_problem(0, -1, "onnx's checker rejects the model", "the model has no ir_version");
  // IR versions the linked onnx does not know but a newer onnx defines get ONNX016's note; a version no onnx has
  // defined (the newest, 14, came with late-2025 onnx) is an error, as it is for onnx's checker.
  if (ir > kNewestIrVersion)
    checker_problem(0, -1, "onnx's checker rejects the model",
                    "IR version " + std::to_string(ir) + " is newer than any onnx defines (the newest is " +
                        std::to_string(kNewestIrVersion) + ")");
  std::unordered_set<std::string_view> keys;
  for (const auto& e : m.metadata_props())
    if (!keys.insert(e.key()).second) {
      checker_problem(0, -1, "onnx's checker rejects the model", "metadata_props has the key '" + e.key() + "' twice");
      break;
    }
  std::unordered_map<std::string, int> imports;
  for (const auto& os : m.opset_import()) imports[os.domain()] = static_cast<int>(os.version());
  if (ir >= 3 && imports.empty())
    checker_problem(0, -1, "onnx's checker rejects the model", "a model of IR version 3 or later must import an opset");
  if (ir > 0 && ir < 3 && !imports.empty())
    checker_problem(0, -1, "onnx's checker rejects the model",
                    "a model of IR version " + std::to_string(ir) + " (< 3) cannot have opset_import");
  if (ir > 0 && ir < 3 && imports.empty()) imports[""] = 1;
  checker_ctx_.set_ir_version(static_cast<int>(ir));
  checker_ctx_.set_opset_imports(imports);
  // Every IR version an onnx release defines is checked: the linked onnx's rules for graphs, values and nodes hold
  // for the newer IR versions too (they added element types, which are left to ONNX016's note, and fields the linked
  // protobuf skips), and nodes whose definition changed are judged by the newer facts.
  checker_on_ = ir > 0 && ir <= kNewestIrVersion;
  checker_sub_ctx_ = checker_ctx_;
  checker_sub_ctx_.set_is_main_graph(false);
  // Model-local functions are checked after their bodies are walked (checker_functions).
}

void OnnxBuilder::checker_graph(int g) {
  if (!checker_on_ || gi_[g].in_function) return;  // function bodies: checker_functions
  const onnx::GraphProto& gp = *gi_[g].proto;
  auto where_g = [&] { return "onnx's checker rejects " + where(g); };  // built only when a check fails
  if (gp.name().empty()) checker_problem(g, -1, where_g(), "the graph has no name");
  const onnx::checker::CheckerContext& ctx = g == 0 ? checker_ctx_ : checker_sub_ctx_;
  auto check_vi = [&](const onnx::ValueInfoProto& vi, const char* what) {
    try {
      onnx::checker::check_value_info(vi, ctx);
      return true;
    } catch (const std::exception& e) {
      checker_problem(g, -1, where_g(), std::string(what) + " " + qname(vi.name()) + ": " + e.what());
      return false;
    }
  };
  bool vi_ok = true;
  for (const auto& vi : gp.input()) vi_ok = vi_ok && check_vi(vi, "graph input");
  for (const auto& vi : gp.output()) vi_ok = vi_ok && check_vi(vi, "graph output");
  std::unordered_set<std::string_view> inputs, inits;
  if (checker_ctx_.get_ir_version() <= 3)
    for (const auto& vi : gp.input()) inputs.insert(vi.name());
  auto check_init = [&](const onnx::TensorProto& t, bool sparse) {
    const std::string who = std::string(sparse ? "sparse initializer" : "initializer") + " " + qname(t.name());
    if (t.name().empty()) return checker_problem(g, -1, where_g(), who + " has no name");
    if (!inits.insert(t.name()).second) return checker_problem(g, -1, where_g(), who + " is defined twice");
    if (!sparse && checker_ctx_.get_ir_version() <= 3 && !inputs.count(t.name()))
      checker_problem(g, -1, where_g(), who + " is not a graph input (IR version 3 and earlier)");
  };
  for (const auto& t : gp.initializer()) {
    check_init(t, false);
    try {
      if (t.data_location() == onnx::TensorProto::EXTERNAL) {
        // Where the data lies is ONNX014 / ONNX015's (onnx's check would probe the path); a value here too is wrong.
        if (t.float_data_size() || t.int32_data_size() || t.string_data_size() || t.int64_data_size() ||
            t.raw_data().size() || t.double_data_size() || t.uint64_data_size())
          checker_problem(g, -1, where_g(), qname(t.name()) + " is stored externally and also holds data");
      } else if (!linked_knows(t)) {                // an element type newer than the linked onnx: ONNX016 names it
      } else if (measure_tensor(t).holds_dims()) {  // data that cannot hold its dims is ONNX018's
        onnx::checker::check_tensor(t, ctx);
      }
    } catch (const std::exception& e) {
      checker_problem(g, -1, where_g(), e.what());
    }
  }
  for (const auto& st : gp.sparse_initializer()) {
    check_init(st.values(), true);
    if (!linked_knows(st.values())) continue;
    try {
      onnx::checker::check_sparse_tensor(st, ctx);
    } catch (const std::exception& e) {
      checker_problem(g, -1, where_g(), e.what());
    }
  }
}

void OnnxBuilder::checker_node(int g, int n, const onnx::NodeProto& np) {
  if (!checker_on_ || gi_[g].in_function || error_at_.count(int64_t(g) << 32 | static_cast<uint32_t>(n))) return;
  // The message is built only for a node that fails (this runs for every node).
  auto what = [&] { return "onnx's checker rejects " + node_label(g, n) + " in " + where(g); };
  if (np.op_type().empty()) return checker_problem(g, n, what(), "the node has no op_type");
  if (np.input_size() == 0 && np.output_size() == 0)
    return checker_problem(g, n, what(), "the node has no input and no output");
  if (onnx::checker::check_is_experimental_op(np.op_type())) return;  // onnx's checker stops there too
  const auto& imports = checker_ctx_.get_opset_imports();
  const auto dit = imports.find(np.domain());
  if (dit == imports.end()) return checker_problem(g, n, what(), "no opset import for domain '" + np.domain() + "'");
  const onnx::checker::CheckerContext& ctx = g == 0 ? checker_ctx_ : checker_sub_ctx_;
  const Judge& judged = judge(np);
  if (judged.kind == Judge::Unjudged) return;  // no definition known: ONNX016 names the operator
  try {
    const onnx::checker::LexicalScopeContext lex;
    for (const auto& a : np.attribute()) {
      if (!a.has_g() && a.graphs_size() == 0) {
        if (!linked_knows(a)) continue;  // a tensor of an element type newer than the linked onnx (ONNX016)
        onnx::AttributeProto stand_in;
        onnx::checker::check_attribute(checker_view(a, stand_in), ctx, lex);  // onnx's own check, no recursion
        continue;
      }
      // A subgraph attribute: its fields here; the subgraphs are checked where the walk enters them.
      if (a.name().empty()) fail_check("an attribute of the node has no name");
      if (checker_ctx_.get_ir_version() >= 2 && !a.has_type()) fail_check("attribute '", a.name(), "' has no type");
      const auto want = a.has_g() ? onnx::AttributeProto::GRAPH : onnx::AttributeProto::GRAPHS;
      if (a.has_type() && a.type() != want)
        fail_check("type field and data field mismatch in attribute ", a.name(), ".");
      const int fields = a.has_f() + a.has_i() + a.has_s() + a.has_t() + a.has_g() + a.has_tp() +
                         a.has_sparse_tensor() + (a.floats_size() > 0) + (a.ints_size() > 0) + (a.strings_size() > 0) +
                         (a.tensors_size() > 0) + (a.graphs_size() > 0) + (a.sparse_tensors_size() > 0) +
                         (a.type_protos_size() > 0);
      if (fields > 1) fail_check("Attribute (name: ", a.name(), ") should not contain more than one value field.");
    }
    if (judged.kind == Judge::Facts) {
      try {
        facts_verify(np, *judged.facts);
      } catch (const std::exception& e) {
        fail_check("by ", facts_label(np, *judged.facts), ": ", e.what());
      }
      return;
    }
    // One registry lookup per operator, domain and version, not per node.
    std::string& key = checker_key_;
    key.assign(np.op_type()).append(1, '\0').append(np.domain());
    auto cached = checker_schemas_.find(key);
    if (cached == checker_schemas_.end())
      cached =
          checker_schemas_.emplace(key, ctx.get_schema_registry()->GetSchema(np.op_type(), dit->second, np.domain()))
              .first;
    const onnx::OpSchema* schema = cached->second;
    if (!schema) {
      const std::string& d = np.domain();
      if (d.empty() || d == "ai.onnx" || d == "ai.onnx.ml" || d == "ai.onnx.training")
        fail_check("no operator ", np.op_type(), " is registered for ", d.empty() ? "ai.onnx" : d, " opset ",
                   dit->second);
    } else if (schema->Deprecated()) {
      fail_check(np.op_type(), " is deprecated in opset ", dit->second);
    } else {
      schema->Verify(np);
    }
  } catch (const std::exception& e) {
    checker_problem(g, n, what(), e.what());
  }
}

OnnxBuilder::Judge OnnxBuilder::judge_at(const std::string& op, const std::string& domain, int64_t version) {
  const std::string d = domain == "ai.onnx" ? std::string() : domain;
  const int newest = schema_facts::newest_opset(d);
  if (newest <= 0 || version <= 0) return {};  // a domain no onnx defines: nothing to compare
  if (version > newest) return {Judge::Unjudged, nullptr};
  const schema_facts::OpFacts* f = schema_facts::select(d, op, version);
  if (!f) return {};  // no definition in the newer onnx either: the linked onnx's verdict ("no operator") stands
  const onnx::OpSchema* old = onnx::OpSchemaRegistry::Schema(op, static_cast<int>(version), d);
  if (old && old->SinceVersion() >= f->since_version) return {};
  return {Judge::Facts, f};
}

const OnnxBuilder::Judge& OnnxBuilder::judge(const onnx::NodeProto& np) {
  judge_key_.assign(np.op_type()).append(1, '\0').append(np.domain());
  auto it = judges_.find(judge_key_);
  if (it == judges_.end()) {
    const std::string d = np.domain() == "ai.onnx" ? std::string() : np.domain();
    const auto imported = data_->opsets.find(d);
    Judge j = imported == data_->opsets.end() ? Judge{} : judge_at(np.op_type(), d, imported->second);
    it = judges_.emplace(judge_key_, j).first;
  }
  return it->second;
}

void OnnxBuilder::facts_verify(const onnx::NodeProto& np, const schema_facts::OpFacts& f) {
  using schema_facts::kSingle;
  using schema_facts::kVariadic;
  if (f.deprecated) fail_check(np.op_type(), " is deprecated since opset ", f.since_version);
  const int n_in = np.input_size(), n_out = np.output_size();
  if (n_in < f.min_input || n_in > f.max_input)
    fail_check("Node (", np.name(), ") has input size ", n_in, " not in range [min=", f.min_input,
               ", max=", f.max_input, "].");
  if (n_out < f.min_output || n_out > f.max_output)
    fail_check("Node (", np.name(), ") has output size ", n_out, " not in range [min=", f.min_output,
               ", max=", f.max_output, "].");
  auto formals = [&](const char* what, int count, int declared, auto formal, auto name) {
    for (int k = 0; k < count; ++k) {
      if (k >= declared) {
        if (declared > 0 && formal(declared - 1).option == kVariadic) break;
        fail_check("Node (", np.name(), ") has more ", what, "s (", count, ") than declared (", declared,
                   ") in op definition.");
      }
      if (name(k).empty() && formal(k).option == kSingle)
        fail_check("Node (", np.name(), ")'s ", what, " ", k, " is marked single but has an empty string in the graph");
    }
  };
  formals(
      "input", n_in, f.inputs.count, [&](int k) -> const auto& { return schema_facts::input(f, k); },
      [&](int k) -> const std::string& { return np.input(k); });
  formals(
      "output", n_out, f.outputs.count, [&](int k) -> const auto& { return schema_facts::output(f, k); },
      [&](int k) -> const std::string& { return np.output(k); });
  std::unordered_set<std::string_view> seen;
  for (const auto& a : np.attribute()) {
    if (!seen.insert(a.name()).second) fail_check("Attribute '", a.name(), "' appeared multiple times.");
    const schema_facts::AttributeFacts* fact = nullptr;
    for (int k = 0; k < f.attributes.count && !fact; ++k)
      if (a.name() == schema_facts::attribute(f, k).name) fact = &schema_facts::attribute(f, k);
    if (!fact) {
      if (a.name().rfind("__", 0) == 0) continue;  // an internal symbol: onnx's checker lets it pass
      fail_check("Unrecognized attribute: ", a.name(), " for operator ", np.op_type());
    }
    if (a.type() != fact->type) fail_check("Mismatched attribute type in '", np.name(), " : ", a.name(), "'");
    if (!a.ref_attr_name().empty()) continue;  // its value comes from the calling function
    using AP = onnx::AttributeProto;
    const char* field = nullptr;
    switch (a.type()) {
      case AP::FLOAT: field = a.has_f() ? nullptr : "f"; break;
      case AP::INT: field = a.has_i() ? nullptr : "i"; break;
      case AP::STRING: field = a.has_s() ? nullptr : "s"; break;
      case AP::TENSOR: field = a.has_t() ? nullptr : "t"; break;
      case AP::GRAPH: field = a.has_g() ? nullptr : "g"; break;
      case AP::SPARSE_TENSOR: field = a.has_sparse_tensor() ? nullptr : "sparse_tensor"; break;
      case AP::TYPE_PROTO: field = a.has_tp() ? nullptr : "tp"; break;
      default: break;  // a list may be empty
    }
    if (field) fail_check("Attribute '", a.name(), "' is expected to have field '", field, "'");
  }
  for (int k = 0; k < f.attributes.count; ++k) {
    const auto& fact = schema_facts::attribute(f, k);
    if (fact.required && !seen.count(fact.name)) fail_check("Required attribute '", fact.name, "' is missing.");
  }
}

bool OnnxBuilder::facts_infer(int g, int n, const onnx::NodeProto& np, const InputState& in,
                              const schema_facts::OpFacts& f, std::vector<const onnx::TypeProto*>& out_types) {
  using namespace schema_facts;
  auto formal = [&](const Run& run, bool is_input, int k) -> const FormalFacts* {
    if (k < run.count) return is_input ? &input(f, k) : &output(f, k);
    if (run.count > 0) {
      const FormalFacts& last = is_input ? input(f, run.count - 1) : output(f, run.count - 1);
      if (last.option == kVariadic) return &last;
    }
    return nullptr;
  };
  auto constraint_of = [&](std::string_view name) -> const ConstraintFacts* {
    for (int c = 0; c < f.constraints.count; ++c)
      if (name == constraint(f, c).name) return &constraint(f, c);
    return nullptr;
  };
  auto allows = [](std::string_view list, std::string_view type) {
    for (size_t at = 0; at <= list.size();) {
      const size_t end = std::min(list.find(';', at), list.size());
      if (list.substr(at, end - at) == type) return true;
      at = end + 1;
    }
    return false;
  };
  // The type each constraint is bound to by the inputs (a variadic formal of mixed types binds nothing).
  std::vector<std::pair<std::string_view, std::string>> bound;
  std::string err;
  for (int i = 0; i < np.input_size() && err.empty(); ++i) {
    if (np.input(i).empty()) continue;
    const FormalFacts* p = formal(f.inputs, true, i);
    const int id = lookup(np.input(i));
    if (!p || id < 0 || !values_[id].tp) continue;  // the count is the checker's; an unknown type binds nothing
    const std::string type = onnx_type_string(*values_[id].tp);
    if (type.empty()) continue;  // a type the linked onnx cannot spell (float8, int4 ...): not judged
    const ConstraintFacts* c = constraint_of(p->type_str);
    if (!allows(c ? allowed_types(*c) : std::string_view(p->type_str), type)) {
      err = "input " + std::to_string(i) + " " + qname(np.input(i)) + " is " + type + ", which " +
            (c ? std::string("its type constraint ") + p->type_str + " does not allow"
               : std::string("is not ") + p->type_str);
      break;
    }
    if (!c || (p->option == kVariadic && !p->homogeneous)) continue;
    auto b = std::find_if(bound.begin(), bound.end(), [&](const auto& x) { return x.first == p->type_str; });
    if (b == bound.end()) bound.emplace_back(p->type_str, type);
    else if (b->second != type)
      err = "input " + std::to_string(i) + " " + qname(np.input(i)) + " is " + type + " where an earlier input binds " +
            p->type_str + " to " + b->second;
  }
  if (!err.empty()) {
    if (!in.tainted) {
      const Node& node = model_->graphs[g].nodes[n];
      problem(PKind::InferenceFailed,
              node.op + " " + qname(node.name) + " in " + where(g) + " is invalid: " + facts_label(np, f) +
                  " type check fails: " + err,
              loc(g, n));
    } else if (detached_failure_ && detached_failure_->empty()) {
      *detached_failure_ =
          np.op_type() + " " + qname(np.name()) + ": " + facts_label(np, f) + " type check fails: " + err;
    }
    return true;
  }
  // Each output's element type where the definition fixes it: one allowed type, or the type an input binds its
  // constraint to; then the shape (and the rest of the type) where condlint has an inference for the definition
  // (loaders/onnx_newer_inference).
  std::vector<onnx::TypeProto> typed(out_types.size());
  for (int k = 0; k < np.output_size() && static_cast<size_t>(k) < out_types.size(); ++k) {
    if (np.output(k).empty()) continue;
    const FormalFacts* p = formal(f.outputs, false, k);
    std::string_view one;
    if (p) {
      const ConstraintFacts* c = constraint_of(p->type_str);
      if (!c) {
        one = p->type_str;
      } else if (allowed_types(*c).find(';') == std::string_view::npos) {
        one = allowed_types(*c);
      } else if (p->option != kVariadic || p->homogeneous) {
        auto b = std::find_if(bound.begin(), bound.end(), [&](const auto& x) { return x.first == p->type_str; });
        if (b != bound.end()) one = b->second;
      }
    }
    int elem = onnx::TensorProto::UNDEFINED;
    if (one.size() > 8 && one.substr(0, 7) == "tensor(" && one.back() == ')') {
      std::string upper(one.substr(7, one.size() - 8));
      for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      onnx::TensorProto::DataType dt;
      if (onnx::TensorProto::DataType_Parse(upper, &dt)) elem = dt;
      else elem = onnx_elem_number(one.substr(7, one.size() - 8));  // a type newer than the linked onnx
    }
    if (elem != onnx::TensorProto::UNDEFINED) typed[static_cast<size_t>(k)].mutable_tensor_type()->set_elem_type(elem);
  }
  if (!newer_inference_hook(g, n, np, in, f, typed)) return true;
  bool all_typed = true;
  for (size_t k = 0; k < typed.size(); ++k) {
    if (np.output(static_cast<int>(k)).empty()) continue;
    if (typed[k].value_case() == onnx::TypeProto::VALUE_NOT_SET) all_typed = false;
    else out_types[k] = intern(typed[k]).tp;
  }
  if (!all_typed) uninferred_roots_.insert(int64_t(g) << 32 | n);
  return false;
}

bool OnnxBuilder::newer_inference_hook(int g, int n, const onnx::NodeProto& np, const InputState& in,
                                       const schema_facts::OpFacts& f, std::vector<onnx::TypeProto>& typed) {
  if (*f.domain != '\0' || !newer_inference::has_inference(np.op_type(), f.since_version)) return true;
  // A node the checker rejected computes nothing the definition defines: its outputs rest on that finding.
  if (error_at_.count(int64_t(g) << 32 | static_cast<uint32_t>(n))) return false;
  std::vector<newer_inference::Input> inputs(static_cast<size_t>(np.input_size()));
  for (int i = 0; i < np.input_size(); ++i) {
    if (np.input(i).empty()) continue;
    auto& x = inputs[static_cast<size_t>(i)];
    x.present = true;
    const int id = lookup(np.input(i));
    if (id < 0 || values_[id].tainted) continue;
    x.type = values_[id].tp && onnx_type_depth(*values_[id].tp) <= kMaxInferTypeDepth ? values_[id].tp : nullptr;
    x.data = values_[id].data;
  }
  std::string err;
  if (newer_inference::infer(np, f.since_version, inputs, typed, err) != newer_inference::Outcome::Failed) return true;
  if (!in.tainted)
    problem(PKind::InferenceFailed,
            node_label(g, n) + " in " + where(g) + " is invalid: " + facts_label(np, f) + " inference fails: " + err,
            loc(g, n));
  return false;
}

// A Model with its main graph and nothing read into it yet.
void OnnxBuilder::start_model() {
  model_ = std::make_unique<Model>();
  model_->format = Format::ONNX;
  model_->path = path_;
  model_->onnx = std::make_unique<OnnxData>();
  data_ = model_->onnx.get();
  Graph main;
  main.role = "main";
  main.loc = loc(0);
  model_->graphs.push_back(main);
}

std::unique_ptr<Model> OnnxBuilder::build() {
  start_model();
  follow_ = std::make_unique<OnnxBranchFollow>(*data_);
  dir_ = fs::path(path_).parent_path();
  // The parsed messages take about nine times their bytes, weights once (bench/README.md). Unless the executor keeps
  // them, the main graph's nodes are parsed as the walk reaches them (below) and only the weights up front (bytes
  // that cannot be split are then parsed whole, with less pre-faulted than they touch: slower, never wrong).
  const size_t weights = weight_bytes(bytes_);
  const MemoryHint parse_hint(keep_proto_ ? (bytes_.size() - weights) * 9 + weights : weights);
  // The parsed messages are freed as the walk goes (unless the executor keeps them): kept apart from what lives on.
  if (!keep_proto_) young_.emplace();
  if (keep_proto_) stream_ = false;
  const bool parse_ok = parse();
  if (young_) young_->close();
  if (!parse_ok) return std::move(model_);
  // Parsed: the messages hold what the walk needs (raw_data weights too), but for the main graph's nodes when they
  // are parsed as the walk goes (their bytes go after the last one).
  if (!stream_ || root_node_count_ == 0) free_owned_bytes();
  // Then about 0.75 KB of model, values and inferred types per node when the whole model was parsed first, 0.55 KB
  // when its main graph's nodes are parsed as the walk goes (measured on the 10,000-If chain of
  // bench/onnx_gen.hpp); weights add nothing. The hint is what the walk surely touches: pages of the pre-faulted
  // region that no allocation reaches count as RSS all the same (the chain: 121 MiB with 300 bytes per node, as fast
  // as with 600, which took 159 MiB). When a whole parse's subgraphs are freed as the walk goes, the Model is built
  // in the pages they leave (the young heap above) and no region is pre-faulted.
  Counts counts = count_nodes(proto_->graph());
  if (stream_) count_wire_nodes(root_nodes_, counts);
  release_walked_ = !keep_proto_ && !parsed_on_big_stack_;
  const bool walk_frees = release_walked_ && counts.subgraph_nodes > 0;
  if (walk_frees && !stream_) compact_root_nodes();
  const MemoryHint build_hint(stream_ ? counts.nodes * 300 : walk_frees ? 0 : counts.nodes * 750);

  data_->ir_version = proto_->ir_version();
  for (const auto& os : proto_->opset_import()) {
    const std::string d = os.domain() == "ai.onnx" ? std::string() : os.domain();
    data_->opsets[d] = os.version();
  }
  if (auto it = data_->opsets.find(""); it != data_->opsets.end()) onnx_opset_ = it->second;
  else if (data_->ir_version > 0 && data_->ir_version < 3) onnx_opset_ = 1;  // IR < 3 predates opset_import
  data_->onnx_opset = onnx_opset_;
  if (onnx_opset_ > 0) {
    // The If version the opset selects, by the newest definitions condlint knows; none when the opset is newer still.
    if (const Judge j = judge_at("If", "", onnx_opset_); j.kind == Judge::Facts)
      data_->if_since_version = j.facts->since_version;
    else if (j.kind == Judge::Linked)
      if (const auto* s = onnx::OpSchemaRegistry::Schema("If", static_cast<int>(onnx_opset_), ""))
        data_->if_since_version = s->SinceVersion();
  }
  checker_model();

  // Size the lists once (the counts above are exact), so the walk does not move hundreds of thousands of values,
  // graphs and views as they grow.
  // (When the walk frees subgraphs it recycles their values' slots: values_ then holds about the main graph's.)
  if (!release_walked_) values_.reserve(counts.values + 16);  // the scope table stays small: only names in scope
  model_->graphs.reserve(counts.graphs);
  gi_.reserve(counts.graphs);
  ifs_.reserve(counts.ifs);
  model_->conditionals.reserve(counts.ifs);

  GraphInfo root;
  root.proto = &proto_->graph();
  gi_.push_back(std::move(root));
  if (proto_->functions_size() > 0) {
    functions_ = std::make_unique<onnx_functions::FunctionIndex>(*proto_);
    hooks_ = std::make_unique<Hooks>(*this);
    typer_ = std::make_unique<onnx_functions::CallTyper>(*functions_, *hooks_);
    call_sites_.resize(static_cast<size_t>(functions_->size()));
    call_failures_.resize(static_cast<size_t>(functions_->size()));
    function_walked_.assign(static_cast<size_t>(functions_->size()), 0);
    function_graphs_.assign(static_cast<size_t>(functions_->size()), {-1, -1});
  }
  if (!walk(0)) {
    // A node protobuf rejects: nothing of the file is read, as when the whole parse fails (its top level scans).
    start_model();
    reject_bytes(WireScan{});
    return std::move(model_);
  }
  walk_functions();
  checker_functions();
  build_views();
  // A model parsed on the big stack must be freed there too (~OnnxBuilder): only a shallow one is handed on.
  if (keep_proto_ && !parsed_on_big_stack_) {
    data_->proto = std::shared_ptr<const onnx::ModelProto>(proto_);
    proto_ = nullptr;
  }
  return std::move(model_);
}

// Walks graph `root` and every graph under it, iteratively.
bool OnnxBuilder::walk(int root) {
  std::vector<Frame> stack{Frame{root}};
  while (!stack.empty()) {
    const size_t top = stack.size() - 1;
    const int g = stack[top].graph;
    if (!stack[top].begun) {
      begin_graph(g);
      stack[top].begun = true;
    }
    if (stack[top].pending >= 0) {
      finish_node(g, stack[top].pending);
      release_subgraphs(g, stack[top].pending);
      stack[top].pending = -1;
    }
    if (stack[top].next < node_count(g)) {
      read_node(top, stack);
      if (stream_failed_) return false;
      continue;
    }
    end_graph(g);
    leave_graph(g);
    stack.pop_back();
  }
  return true;
}

// Each model-local function's body, once, as a root graph of its own ("function:DOMAIN.NAME"), after every graph
// that calls it where the calls allow: its inputs typed as all its calls agree, its attribute references replaced
// by the values all its calls give (loaders/onnx_functions). Its Ifs become conditionals like any other.
void OnnxBuilder::walk_functions() {
  if (!functions_) return;
  for (const int f : functions_->order()) {
    const onnx::FunctionProto& fp = proto_->functions(f);
    onnx_functions::CallSites& sites = call_sites_[static_cast<size_t>(f)];
    if (!functions_->callers_first(f)) sites.add_unknown();  // a caller in a cycle with it comes later
    onnx::GraphProto& body = function_bodies_.emplace_back();
    onnx_functions::body_graph(fp, sites, body);
    const int gid = static_cast<int>(model_->graphs.size());
    Graph gr;
    gr.role = onnx_functions::function_path(fp);
    gr.own_root = true;
    gr.loc = loc(gid);
    model_->graphs.push_back(std::move(gr));
    GraphInfo info;
    info.proto = &body;
    info.in_function = true;
    info.function_root = true;
    gi_.push_back(std::move(info));
    (void)walk(gid);  // only the main graph's nodes are parsed as the walk goes
    function_walked_[static_cast<size_t>(f)] = 1;
    function_graphs_[static_cast<size_t>(f)] = {gid, static_cast<int>(model_->graphs.size())};
    // A failure that only the calls' own types expose (they do not agree, so the body was walked without them):
    // reported at each call, unless the body reports a problem itself (one root cause, one finding).
    bool body_reports = false;
    for (const OnnxProblem& p : data_->problems)
      if (p.kind == PKind::InferenceFailed && p.loc.graph >= gid) body_reports = true;
    if (!body_reports)
      for (const CallFailure& c : call_failures_[static_cast<size_t>(f)])
        problem(PKind::InferenceFailed,
                node_label(c.graph, c.node) + " in " + where(c.graph) +
                    " is invalid: onnx's inference through function " + qname(fp.domain() + "." + fp.name()) +
                    " fails for this call's input types at " + c.why,
                loc(c.graph, c.node));
  }
}

bool OnnxBuilder::type_call(int g, int n, const onnx::NodeProto& np, const InputState& in,
                            std::vector<const onnx::TypeProto*>& out, bool& failed) {
  const int f = functions_ ? functions_->callee(np) : -1;
  if (f < 0) return false;
  // Every input the function declares must be given: onnx's inference through the body fails without its type.
  const onnx::FunctionProto& fp = functions_->function(f);
  for (int k = 0; k < fp.input_size(); ++k)
    if (k >= np.input_size() || np.input(k).empty()) {
      if (!in.tainted)
        problem(PKind::InferenceFailed,
                node_label(g, n) + " in " + where(g) + " is invalid: onnx's inference through function " +
                    qname(fp.domain() + "." + fp.name()) + " fails: its input " + std::to_string(k) + " " +
                    qname(fp.input(k)) + " is not given",
                loc(g, n));
      failed = true;
      return true;
    }
  std::vector<const onnx::TypeProto*> types;
  std::vector<const onnx::TensorProto*> data;
  for (int i = 0; i < np.input_size(); ++i) {
    const int id = np.input(i).empty() ? -1 : input_id(g, n, np, i);
    const bool known = id >= 0 && !values_[id].tainted && values_[id].tp && interned_.count(values_[id].tp);
    types.push_back(known ? values_[id].tp : nullptr);
    data.push_back(known ? values_[id].data : nullptr);
  }
  // A body walked already (a call from a function walked later, in a cycle) learns nothing more from it.
  if (!function_walked_[static_cast<size_t>(f)]) call_sites_[static_cast<size_t>(f)].add(np, types);
  // An unknown output of a call is condlint's ignorance (a bound, calls that do not agree), never ONNX013's.
  uninferred_roots_.insert(int64_t(g) << 32 | n);
  const int saved_graph = input_ids_graph_, saved_node = input_ids_node_;
  typing_graph_ = g;
  typing_node_ = n;
  input_ids_graph_ = -1;  // the nodes typed inside read their inputs from their own scope
  std::string why;
  typer_->type_call(f, np, types, data, out, &why);
  if (!why.empty() && !in.tainted) call_failures_[static_cast<size_t>(f)].push_back({g, n, std::move(why)});
  input_ids_graph_ = saved_graph;
  input_ids_node_ = saved_node;
  return true;
}

// onnx's inference for a node inside a call's body: the node sees only its inputs, under their names (a scope of
// its own in place of the walk's), and reports nothing (the body's own walk does).
std::string OnnxBuilder::infer_detached(const onnx::NodeProto& np, const std::vector<const onnx::TypeProto*>& in,
                                        const std::vector<const onnx::TensorProto*>& data,
                                        std::vector<const onnx::TypeProto*>& out) {
  std::swap(visible_, detached_);
  const size_t first = values_.size();
  for (int i = 0; i < np.input_size() && static_cast<size_t>(i) < in.size(); ++i) {
    if (np.input(i).empty() || !in[static_cast<size_t>(i)]) continue;
    Value v;
    v.src = Value::Input;
    v.name = np.input(i);
    v.tp = in[static_cast<size_t>(i)];
    v.typed = &intern(*v.tp);
    v.data = static_cast<size_t>(i) < data.size() ? data[static_cast<size_t>(i)] : nullptr;
    values_.push_back(std::move(v));
    visible_.assign(np.input(i), static_cast<int>(values_.size() - 1));
  }
  InputState quiet;
  quiet.tainted = true;  // nothing is reported from here: a failure is handed back
  std::string why;
  detached_failure_ = &why;
  const bool failed = infer(typing_graph_, typing_node_, np, quiet, out);
  detached_failure_ = nullptr;
  if (failed) std::fill(out.begin(), out.end(), nullptr);
  for (const auto& name : np.input())
    if (!name.empty()) visible_.erase(name);
  values_.resize(first);
  std::swap(visible_, detached_);
  return failed ? (why.empty() ? np.op_type() + " " + qname(np.name()) + ": onnx's inference fails" : why) : "";
}

// onnx's checker for the model-local functions (check_model_local_functions: each function with the model's
// imports merged with its own), one function at a time so that a rejection names its function, and never where
// the function's walk already recorded an error (one root cause, one finding).
void OnnxBuilder::checker_functions() {
  const onnx::ModelProto& m = *proto_;
  if (!checker_on_ || m.ir_version() < 8 || m.functions_size() == 0) return;
  auto function_has_error = [&](int f) {
    const auto [first, end] =
        function_graphs_.empty() ? std::pair<int, int>{-1, -1} : function_graphs_[static_cast<size_t>(f)];
    for (const int64_t at : error_at_) {
      const int g = static_cast<int>(at >> 32);
      if (g >= first && g < end) return true;
    }
    return false;
  };
  auto where_f = [&](int f) {
    const int g = function_graphs_.empty() ? -1 : function_graphs_[static_cast<size_t>(f)].first;
    return g >= 0 ? g : 0;
  };
  // A function body's node whose opset selects a definition newer than the linked onnx's is judged by the newer
  // facts: then every body node is checked here, each by the definition its function's imports select.
  std::vector<std::vector<Judge>> judged(static_cast<size_t>(m.functions_size()));
  bool newer = false;
  for (int f = 0; f < m.functions_size(); ++f) {
    const onnx::FunctionProto& fp = m.functions(f);
    for (const auto& nd : fp.node()) {
      Judge j;
      for (const auto& os : fp.opset_import())
        if (os.domain() == nd.domain() ||
            ((os.domain().empty() || os.domain() == "ai.onnx") && (nd.domain().empty() || nd.domain() == "ai.onnx")))
          j = judge_at(nd.op_type(), nd.domain(), os.version());
      newer = newer || j.kind != Judge::Linked;
      judged[static_cast<size_t>(f)].push_back(j);
    }
  }
  if (!newer) {
    std::unordered_map<std::string, int> imports(checker_ctx_.get_opset_imports());
    for (const auto& fp : m.functions())
      for (const auto& os : fp.opset_import())
        if (!imports.count(os.domain())) imports[os.domain()] = static_cast<int>(os.version());
    onnx::checker::CheckerContext ctx = checker_ctx_;
    ctx.set_opset_imports(imports);
    for (int f = 0; f < m.functions_size(); ++f) {
      if (function_has_error(f)) continue;
      try {
        onnx::checker::LexicalScopeContext lex;
        onnx::checker::check_function(m.functions(f), ctx, lex);
      } catch (const std::exception& e) {
        checker_problem(where_f(f), -1, "onnx's checker rejects a model-local function", e.what());
      }
    }
    return;
  }
  for (int f = 0; f < m.functions_size(); ++f) {
    if (function_has_error(f)) continue;
    const onnx::FunctionProto& fp = m.functions(f);
    for (int k = 0; k < fp.node_size(); ++k) {
      const onnx::NodeProto& nd = fp.node(k);
      const Judge& j = judged[static_cast<size_t>(f)][static_cast<size_t>(k)];
      try {
        if (j.kind == Judge::Facts) {
          try {
            facts_verify(nd, *j.facts);
          } catch (const std::exception& e) {
            fail_check("by ", facts_label(nd, *j.facts), ": ", e.what());
          }
        } else if (j.kind == Judge::Linked) {
          for (const auto& os : fp.opset_import())
            if (os.domain() == nd.domain() && os.version() > 0 && os.version() <= kMaxOpsetVersion)
              if (const auto* sc =
                      onnx::OpSchemaRegistry::Schema(nd.op_type(), static_cast<int>(os.version()), nd.domain()))
                sc->Verify(nd);
        }
      } catch (const std::exception& e) {
        checker_problem(
            where_f(f), -1, "onnx's checker rejects a model-local function",
            "function " + qname(fp.name()) + ", node " + qname(nd.name()) + " (" + nd.op_type() + "): " + e.what());
        break;
      }
    }
  }
}

}  // namespace

namespace {

template <typename Bytes>
std::unique_ptr<Model> load_onnx_from(const std::string& path, Bytes&& bytes, bool keep_proto) {
  std::string error;
  try {
    auto b = std::make_unique<OnnxBuilder>(path, std::forward<Bytes>(bytes), keep_proto);
    auto m = b->build();
    // The parsed messages and the builder's tables: freed here, or left to the process's exit when the
    // process lints this one model (a 10,000-If model spends tens of milliseconds freeing them).
    if (loader_teardown_skipped()) (void)b.release();
    return m;
  } catch (const std::bad_alloc&) {
    error = "out of memory while reading the file";
  } catch (const std::exception& e) {
    error = std::string("internal error while reading the file: ") + e.what();
  }
  auto m = std::make_unique<Model>();
  m->format = Format::ONNX;
  m->path = path;
  m->onnx = std::make_unique<OnnxData>();
  Graph g;
  g.role = "main";
  m->graphs.push_back(g);
  SourceLocation l;
  l.graph = 0;
  m->onnx->problems.push_back({PKind::Parse, error, l});
  return m;
}

}  // namespace

std::unique_ptr<Model> load_onnx(const std::string& path, const std::string& bytes, bool keep_proto) {
  return load_onnx_from(path, bytes, keep_proto);
}

std::unique_ptr<Model> load_onnx_view(const std::string& path, std::string_view bytes, bool keep_proto) {
  return load_onnx_from(path, bytes, keep_proto);
}

std::unique_ptr<Model> load_onnx(const std::string& path, std::string&& bytes, bool keep_proto) {
  return load_onnx_from(path, std::move(bytes), keep_proto);
}

}  // namespace condlint
