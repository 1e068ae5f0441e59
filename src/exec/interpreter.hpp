// The ONNX reference interpreter: graphs run in topological order, outer-scope names are looked up
// through a chain of scopes (as onnx's checker does), If / Loop / Scan / SequenceMap run their bodies with
// a bounded nesting depth, and If conditions can be pinned by node path to run the branch the data does
// not select.
#pragma once

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <onnx/onnx_pb.h>

#include "exec/tensor.hpp"

namespace onnx {
class OpSchema;
}

namespace condlint::exec {

struct Scope {
  const Scope* parent = nullptr;
  std::unordered_map<std::string, Value> values;
  const Value* find(const std::string& name) const {
    for (const Scope* s = this; s; s = s->parent) {
      auto it = s->values.find(name);
      if (it != s->values.end()) return &it->second;
    }
    return nullptr;
  }
};

// What one run did with the conditionals it met.
struct Trace {
  struct IfSite {
    std::set<bool> computed;  // condition values the data produced
    std::set<bool> ran;       // branches that ran (after pinning)
    bool pinned = false;
  };
  std::map<std::string, IfSite> ifs;  // node path -> site
  // Pinned (or taken) branches whose outputs do not match the If's declared types/shapes.
  std::vector<std::string> branch_problems;
};

struct RunOptions {
  Limits limits;
  std::map<std::string, bool> pins;  // If node path -> condition value to use
};

class Interpreter;

// Everything a kernel sees.
struct OpCtx {
  Interpreter& ip;
  const onnx::NodeProto& node;
  const Scope& scope;
  const onnx::GraphProto* graph = nullptr;  // the graph holding the node (null inside functions)
  std::string path;
  int opset = 0;
  int depth = 0;
  std::vector<const Value*> in;  // nullptr when the optional input is absent
  std::vector<Value> out;

  size_t n_in() const { return in.size(); }
  bool has(size_t k) const { return k < in.size() && in[k] != nullptr; }
  const Value& val(size_t k) const;
  const Tensor& t(size_t k) const;  // input k as a tensor (throws when absent or not a tensor)
  const onnx::AttributeProto* attr(const std::string& name) const;
  int64_t attr_i(const std::string& name, int64_t def) const;
  float attr_f(const std::string& name, float def) const;
  std::string attr_s(const std::string& name, const std::string& def) const;
  std::vector<int64_t> attr_ints(const std::string& name) const;
  std::vector<float> attr_floats(const std::string& name) const;
  bool has_attr(const std::string& name) const { return attr(name) != nullptr; }
  void set(size_t k, Tensor x);
  void set(size_t k, Value v);
  size_t n_out() const { return static_cast<size_t>(node.output_size()); }
  bool want(size_t k) const { return k < n_out() && !node.output(static_cast<int>(k)).empty(); }
};

using KernelFn = void (*)(OpCtx&);
using KernelTable = std::unordered_map<std::string, KernelFn>;
const KernelTable& kernels();

class Interpreter {
 public:
  Interpreter(const onnx::ModelProto& model, RunOptions opts);
  // The main graph's inputs that golden data feeds (graph inputs that are not initializers), in order.
  std::vector<const onnx::ValueInfoProto*> data_inputs() const;
  std::vector<const onnx::ValueInfoProto*> data_outputs() const;
  // Runs the main graph. Throws ExecError.
  std::vector<Value> run(const std::vector<Value>& inputs);

  // For control-flow kernels.
  std::vector<Value> run_graph(const onnx::GraphProto& g, const Scope* parent, const std::vector<Value>& inputs,
                               const std::string& path, int depth);
  // `schema` (may be null) supplies defaults for attributes the caller does not set.
  void run_function(const onnx::FunctionProto& f, OpCtx& c, const onnx::OpSchema* schema = nullptr);
  void check_deadline();
  bool pin_for(const std::string& path, bool computed);
  void record_branch_problem(const std::string& msg) {
    for (const auto& m : trace.branch_problems)
      if (m == msg) return;
    trace.branch_problems.push_back(msg);
  }
  // The declared type of a value named in graph `g` (outputs, value_info, inputs), or null.
  const onnx::TypeProto* declared_type(const onnx::GraphProto& g, const std::string& name) const;

  const onnx::ModelProto& model;
  RunOptions opts;
  Trace trace;

 private:
  void run_node(const onnx::NodeProto& n, Scope& scope, const std::string& path, int depth, int opset,
                const onnx::GraphProto* graph);
  int default_opset_ = 1;
  std::chrono::steady_clock::time_point deadline_;
  std::map<std::pair<std::string, std::string>, const onnx::FunctionProto*> local_functions_;
  std::unordered_map<const onnx::GraphProto*, std::vector<std::pair<std::string, Value>>> initializer_cache_;
};

// Checks a value against a declared type: kind, element type, rank and static dims. Returns "" or a reason.
// `elem_shapes`: also check the shapes of sequence elements (branch graphs often declare them loosely).
std::string check_against_type(const Value& v, const onnx::TypeProto& t, bool elem_shapes = true);
std::string type_str(const onnx::TypeProto& t);
// Kind and element types only (no shapes).
std::string check_type_rec(const Value& v, const onnx::TypeProto& t, bool elem_shapes, bool top);

}  // namespace condlint::exec
