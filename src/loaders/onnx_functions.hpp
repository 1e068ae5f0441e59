// Model-local functions (onnx::FunctionProto) as the ONNX loader reads them:
//   - FunctionIndex: the functions by (domain, name), who calls whom, and the order their bodies are walked in;
//   - CallSites: what the call sites of one function agree on (each input's type, each attribute's value), which
//     types the function's body when it is linted once for every call;
//   - body_graph: a function's body as a GraphProto the loader's walk reads like any graph;
//   - CallTyper: the output types of one call, inferred through the body with the call's input types (onnx's own
//     per-node inference through the loader's hooks; If outputs as the union of both branches), bounded.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace condlint::onnx_functions {

// Calls nested deeper than this are not typed through their bodies (their outputs are unknown, which is sound).
constexpr int kMaxCallDepth = 8;
// Subgraphs (If branches) nested deeper than this inside a body are not typed through either.
constexpr int kMaxNesting = 32;
// Body nodes typed through per model, over all calls (memoized per distinct call): past it, calls are unknown.
constexpr size_t kTypingBudget = 200000;

// "function:DOMAIN.NAME": the path root of a function's body (findings, `--pin` in diff and export).
std::string function_path(const onnx::FunctionProto& f);

class FunctionIndex {
 public:
  explicit FunctionIndex(const onnx::ModelProto& m);
  int size() const { return static_cast<int>(functions_.size()); }
  const onnx::FunctionProto& function(int f) const { return *functions_[static_cast<size_t>(f)]; }
  // The function a node calls (the last one defined under its domain and name, as the executor picks), or -1.
  int callee(const onnx::NodeProto& n) const;
  // Every function, each after the functions that call it; the members of a call cycle in file order.
  const std::vector<int>& order() const { return order_; }
  // Whether every function that calls f is walked before f (false in a call cycle).
  bool callers_first(int f) const { return callers_first_[static_cast<size_t>(f)] != 0; }
  // Whether f calls itself, directly or through other functions (its calls are never typed through its body).
  bool recursive(int f) const { return recursive_[static_cast<size_t>(f)] != 0; }

 private:
  std::vector<const onnx::FunctionProto*> functions_;
  std::unordered_map<std::string, int> by_key_;  // domain '\0' name -> index
  std::vector<int> order_;
  std::vector<char> callers_first_, recursive_;
};

// What the call sites of one function agree on. A type is an interned pointer (equal types are one pointer).
class CallSites {
 public:
  // One call: each input's type (null: unknown) and the call's attributes.
  void add(const onnx::NodeProto& call, const std::vector<const onnx::TypeProto*>& types);
  // A call whose input types are not known at all (a call site in a body walked later, in a call cycle).
  void add_unknown() { unknown_ = true; }
  int calls() const { return calls_; }
  // The type every call gives input k, or null (no call, an unknown type, or calls that differ).
  const onnx::TypeProto* type(int k) const;
  // The value every call gives attribute `name`, or null (absent somewhere, or calls that differ).
  const onnx::AttributeProto* attribute(const std::string& name) const;

 private:
  int calls_ = 0;
  bool unknown_ = false;
  std::vector<const onnx::TypeProto*> types_;
  std::vector<char> types_differ_;
  std::map<std::string, onnx::AttributeProto> attrs_;  // agreed so far (present at every call)
  std::set<std::string> attrs_differ_;
};

// Function f's body as a graph: its name, its inputs typed as every call site agrees (untyped otherwise), its
// outputs by name, its nodes (and their subgraphs) with each attribute reference replaced by the value every call
// gives it; a reference the calls do not agree on is left as it is (the loader does not infer such a node).
void body_graph(const onnx::FunctionProto& f, const CallSites& sites, onnx::GraphProto& out);

// Whether a node (not its subgraphs) has an attribute that refers to its function's attribute.
bool has_attribute_reference(const onnx::NodeProto& n);

// What typing a call needs of the loader.
class TypingHooks {
 public:
  virtual ~TypingHooks() = default;
  // The output types of an ordinary node (no graph attribute, not a call of a model-local function) from its input
  // types and constant data, by the definition the model's opset selects; null where unknown. Reports nothing:
  // returns why the node's inference fails ("" when it does not).
  virtual std::string infer_node(const onnx::NodeProto& n, const std::vector<const onnx::TypeProto*>& in,
                                 const std::vector<const onnx::TensorProto*>& data,
                                 std::vector<const onnx::TypeProto*>& out) = 0;
  // The union of two types (what either branch may give), interned; null when nothing sound can be said.
  virtual const onnx::TypeProto* unite(const onnx::TypeProto* a, const onnx::TypeProto* b) = 0;
  // An interned copy of a declared type (null when it is too deep or past a limit).
  virtual const onnx::TypeProto* keep(const onnx::TypeProto& t) = 0;
};

class CallTyper {
 public:
  CallTyper(const FunctionIndex& index, TypingHooks& hooks) : index_(index), hooks_(hooks) {}
  // The output types of `call`, a call of function f whose inputs have types `in` (null: unknown) and constant
  // data `data`: inferred through f's body, nested calls too (to kMaxCallDepth; never through a recursive
  // function), memoized per distinct call. Null where unknown; never reports: `why` (when given) says where the
  // inference through the body first fails ("" when it does not).
  void type_call(int f, const onnx::NodeProto& call, const std::vector<const onnx::TypeProto*>& in,
                 const std::vector<const onnx::TensorProto*>& data, std::vector<const onnx::TypeProto*>& out,
                 std::string* why = nullptr);

 private:
  struct Slot {
    const onnx::TypeProto* type = nullptr;
    const onnx::TensorProto* data = nullptr;
  };
  using Scope = std::vector<std::unordered_map<std::string, Slot>>;  // innermost last
  void walk_nodes(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes, const onnx::NodeProto& call,
                  Scope& scope, int depth, int nesting);
  void type_node(const onnx::NodeProto& n, const onnx::NodeProto& call, Scope& scope, int depth, int nesting);
  std::vector<const onnx::TypeProto*> branch_outputs(const onnx::GraphProto& g, const onnx::NodeProto& call,
                                                     Scope& scope, int depth, int nesting);
  // The output type of a node whose inputs are not all typed, when its operator's output type does not depend on
  // them (Shape, Size); null otherwise.
  const onnx::TypeProto* input_free_type(const onnx::NodeProto& n);

  const FunctionIndex& index_;
  TypingHooks& hooks_;
  struct Typed {
    std::vector<const onnx::TypeProto*> out;
    std::string why;  // where the inference through the body first failed
  };
  std::unordered_map<std::string, Typed> memo_;
  std::string failure_;   // the first failure of the call being typed
  std::set<int> active_;  // functions being typed now
  size_t spent_ = 0;      // body nodes typed so far
  std::string key_;
};

}  // namespace condlint::onnx_functions
