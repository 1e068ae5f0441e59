#include "exec/interpreter.hpp"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <queue>
#include <unordered_set>

#include "exec/kernel_util.hpp"
#include "exec/onnx_io.hpp"
#include "model/node_path.hpp"

namespace condlint::exec {

// ------------------------------------------------------------------ OpCtx
const Value& OpCtx::val(size_t k) const {
  if (!has(k)) fail("input " + std::to_string(k) + " is missing");
  return *in[k];
}
const Tensor& OpCtx::t(size_t k) const {
  const Value& v = val(k);
  if (!v.is_tensor()) fail("input " + std::to_string(k) + " is a " + v.describe() + ", not a tensor");
  return *v.t;
}
const onnx::AttributeProto* OpCtx::attr(const std::string& name) const {
  for (const auto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}
int64_t OpCtx::attr_i(const std::string& name, int64_t def) const {
  const auto* a = attr(name);
  return a ? a->i() : def;
}
float OpCtx::attr_f(const std::string& name, float def) const {
  const auto* a = attr(name);
  return a ? a->f() : def;
}
std::string OpCtx::attr_s(const std::string& name, const std::string& def) const {
  const auto* a = attr(name);
  return a ? a->s() : def;
}
std::vector<int64_t> OpCtx::attr_ints(const std::string& name) const {
  const auto* a = attr(name);
  if (!a) return {};
  return {a->ints().begin(), a->ints().end()};
}
std::vector<float> OpCtx::attr_floats(const std::string& name) const {
  const auto* a = attr(name);
  if (!a) return {};
  return {a->floats().begin(), a->floats().end()};
}
void OpCtx::set(size_t k, Tensor x) { set(k, Value::tensor(std::move(x))); }
void OpCtx::set(size_t k, Value v) {
  if (out.size() <= k) out.resize(k + 1);
  out[k] = std::move(v);
}

const KernelTable& kernels() {
  static const KernelTable table = [] {
    KernelTable t;
    register_elementwise(t);
    register_shape_ops(t);
    register_reduce_ops(t);
    register_nn_ops(t);
    register_sequence_ops(t);
    register_control_flow(t);
    register_resize_ops(t);
    register_extra_ops(t);
    register_rnn_ops(t);
    register_norm_ops(t);
    register_attention_ops(t);
    return t;
  }();
  return table;
}

// ------------------------------------------------------------------ types
std::string check_type_rec(const Value& v, const onnx::TypeProto& t, bool elem_shapes, bool top);
std::string type_str(const onnx::TypeProto& t) {
  if (t.has_tensor_type()) {
    std::string s = dt_name(static_cast<DT>(t.tensor_type().elem_type()));
    if (t.tensor_type().has_shape()) {
      s += "[";
      const auto& sh = t.tensor_type().shape();
      for (int k = 0; k < sh.dim_size(); ++k) {
        if (k) s += ",";
        const auto& d = sh.dim(k);
        s += d.has_dim_value() ? std::to_string(d.dim_value()) : d.has_dim_param() ? d.dim_param() : "?";
      }
      s += "]";
    }
    return s;
  }
  if (t.has_sequence_type()) return "seq(" + type_str(t.sequence_type().elem_type()) + ")";
  if (t.has_optional_type()) return "optional(" + type_str(t.optional_type().elem_type()) + ")";
  return "?";
}

std::string check_against_type(const Value& v, const onnx::TypeProto& t, bool elem_shapes) {
  return check_type_rec(v, t, elem_shapes, true);
}

std::string check_type_rec(const Value& v, const onnx::TypeProto& t, bool elem_shapes, bool top) {
  if (t.has_tensor_type()) {
    if (v.kind != Value::Kind::Tensor) return "is a " + v.describe() + ", declared " + type_str(t);
    const auto& tt = t.tensor_type();
    if (tt.elem_type() != 0 && tt.elem_type() != static_cast<int>(v.t->dt))
      return "has element type " + std::string(dt_name(v.t->dt)) + ", declared " + type_str(t);
    if (tt.has_shape() && (elem_shapes || top)) {
      const auto& sh = tt.shape();
      if (sh.dim_size() != static_cast<int>(v.t->rank()))
        return "has shape " + dims_str(v.t->shape) + ", declared " + type_str(t);
      for (int k = 0; k < sh.dim_size(); ++k)
        if (sh.dim(k).has_dim_value() && sh.dim(k).dim_value() != v.t->shape[k])
          return "has shape " + dims_str(v.t->shape) + ", declared " + type_str(t);
    }
    return "";
  }
  if (t.has_sequence_type()) {
    if (v.kind != Value::Kind::Sequence) return "is a " + v.describe() + ", declared " + type_str(t);
    if (t.sequence_type().has_elem_type() && v.seq)
      for (const auto& x : *v.seq)
        if (auto e = check_type_rec(x, t.sequence_type().elem_type(), elem_shapes, false); !e.empty())
          return "element " + e;
    return "";
  }
  if (t.has_optional_type()) {
    if (v.kind == Value::Kind::Optional) {
      if (v.opt && t.optional_type().has_elem_type())
        return check_type_rec(*v.opt, t.optional_type().elem_type(), elem_shapes, top);
      return "";
    }
    return "is a " + v.describe() + ", declared " + type_str(t);
  }
  return "";
}

// ------------------------------------------------------------------ Interpreter
Interpreter::Interpreter(const onnx::ModelProto& m, RunOptions o) : model(m), opts(std::move(o)) {
  for (const auto& op : m.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") default_opset_ = static_cast<int>(op.version());
  for (const auto& f : m.functions()) local_functions_[{f.domain(), f.name()}] = &f;
}

std::vector<const onnx::ValueInfoProto*> Interpreter::data_inputs() const {
  std::unordered_set<std::string> inits;
  for (const auto& t : model.graph().initializer()) inits.insert(t.name());
  for (const auto& t : model.graph().sparse_initializer()) inits.insert(t.values().name());
  std::vector<const onnx::ValueInfoProto*> out;
  for (const auto& i : model.graph().input())
    if (!inits.count(i.name())) out.push_back(&i);
  return out;
}

std::vector<const onnx::ValueInfoProto*> Interpreter::data_outputs() const {
  std::vector<const onnx::ValueInfoProto*> out;
  for (const auto& o : model.graph().output()) out.push_back(&o);
  return out;
}

const onnx::TypeProto* Interpreter::declared_type(const onnx::GraphProto& g, const std::string& name) const {
  for (const auto& v : g.output())
    if (v.name() == name && v.has_type()) return &v.type();
  for (const auto& v : g.value_info())
    if (v.name() == name && v.has_type()) return &v.type();
  return nullptr;
}

void Interpreter::check_deadline() {
  if (std::chrono::steady_clock::now() > deadline_) throw_time_limit(opts.limits);
}

bool Interpreter::pin_for(const std::string& path, bool computed) {
  auto& site = trace.ifs[path];
  site.computed.insert(computed);
  bool use = computed;
  if (auto it = opts.pins.find(path); it != opts.pins.end()) {
    use = it->second;
    site.pinned = true;
  }
  site.ran.insert(use);
  return use;
}

std::vector<Value> Interpreter::run(const std::vector<Value>& inputs) {
  guard().limits = opts.limits;
  deadline_ = opts.limits.deadline.with_run_limit(opts.limits.timeout_ms);
  const auto ins = data_inputs();
  if (inputs.size() != ins.size())
    fail("the model has " + std::to_string(ins.size()) + " inputs, the data set gives " +
         std::to_string(inputs.size()));
  Scope root;
  for (size_t k = 0; k < ins.size(); ++k) {
    if (ins[k]->has_type())
      // Kind and element type must match; shapes are not enforced on inputs (ONNX's own data sets break them).
      if (auto e = check_type_rec(inputs[k], ins[k]->type(), false, false); !e.empty())
        fail("input '" + ins[k]->name() + "' " + e);
  }
  // Initializers first, then inputs by name (inputs override initializers of the same name).
  std::vector<Value> args;
  for (const auto& gi : model.graph().input()) {
    bool found = false;
    for (size_t k = 0; k < ins.size(); ++k)
      if (ins[k] == &gi) {
        args.push_back(inputs[k]);
        found = true;
      }
    if (!found) args.push_back(Value());  // initializer provides it
  }
  return run_graph(model.graph(), nullptr, args, "main", 0);
}

namespace {
// Every name a node of `g` or of a graph inside it reads, and `g`'s outputs: the initializers a run can need. An
// initializer outside this set is never turned into a tensor, so a weight no node reads costs nothing, whatever its
// size (it is still checked by the loader).
void names_read(const onnx::GraphProto& g, std::unordered_set<std::string>& read) {
  for (const auto& o : g.output()) read.insert(o.name());
  for (const auto& n : g.node()) {
    for (const auto& i : n.input())
      if (!i.empty()) read.insert(i);
    for (const auto& a : n.attribute()) {
      if (a.has_g()) names_read(a.g(), read);
      for (const auto& sub : a.graphs()) names_read(sub, read);
    }
  }
}
}  // namespace

std::vector<Value> Interpreter::run_graph(const onnx::GraphProto& g, const Scope* parent,
                                          const std::vector<Value>& inputs, const std::string& path, int depth) {
  if (depth > opts.limits.max_depth)
    throw ExecError(ErrKind::Resource, "nesting deeper than " + std::to_string(opts.limits.max_depth) + " at " + path);
  check_deadline();
  Scope scope;
  scope.parent = parent;
  auto cache = initializer_cache_.find(&g);
  if (cache == initializer_cache_.end()) {
    std::vector<std::pair<std::string, Value>> inits;
    std::unordered_set<std::string> read;
    if (g.initializer_size()) names_read(g, read);
    // An initializer's values are the file's: the per-tensor limit, which keeps a small file from making a run
    // allocate without bound, gives way to the live-bytes limit for them (the file bounds them already).
    Limits& limits = guard().limits;
    const int64_t per_tensor = limits.max_elements;
    struct Restore {
      Limits& l;
      int64_t v;
      ~Restore() { l.max_elements = v; }
    } restore{limits, per_tensor};
    limits.max_elements = std::max(per_tensor, limits.max_total_bytes / 8);
    for (const auto& t : g.initializer()) {
      if (!read.count(t.name())) continue;  // no node reads it: its bytes stay in the file
      try {
        inits.emplace_back(t.name(), Value::tensor(tensor_from_proto(t)));
      } catch (const ExecError& e) {
        throw ExecError(e.kind, "initializer '" + t.name() + "' of " + path + ": " + e.what());
      }
    }
    if (g.sparse_initializer_size()) throw ExecError(ErrKind::Unsupported, "sparse initializers at " + path);
    cache = initializer_cache_.emplace(&g, std::move(inits)).first;
  }
  for (const auto& [n, v] : cache->second) scope.values[n] = v;
  if (inputs.size() > static_cast<size_t>(g.input_size()))
    fail(path + " takes " + std::to_string(g.input_size()) + " inputs, given " + std::to_string(inputs.size()));
  for (size_t k = 0; k < inputs.size(); ++k)
    if (inputs[k].kind != Value::Kind::None) scope.values[g.input(static_cast<int>(k)).name()] = inputs[k];

  // Topological order: ready nodes by original index (keeps the file's order when it is already sorted).
  const int n = g.node_size();
  std::unordered_map<std::string, int> producer;
  for (int k = 0; k < n; ++k)
    for (const auto& o : g.node(k).output())
      if (!o.empty()) producer.emplace(o, k);
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> users(n);
  for (int k = 0; k < n; ++k)
    for (const auto& i : g.node(k).input()) {
      if (i.empty() || scope.values.count(i)) continue;
      auto it = producer.find(i);
      if (it != producer.end() && it->second != k) {
        ++pending[k];
        users[it->second].push_back(k);
      }
    }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int k = 0; k < n; ++k)
    if (!pending[k]) ready.push(k);
  int done = 0;
  while (!ready.empty()) {
    const int k = ready.top();
    ready.pop();
    const auto& node = g.node(k);
    const std::string npath = node_path::child(path, node_path::node_segment(node.name(), node.op_type(), k));
    run_node(node, scope, npath, depth, default_opset_, &g);
    ++done;
    for (int u : users[k])
      if (--pending[u] == 0) ready.push(u);
  }
  if (done != n) fail(path + ": the graph has a cycle; " + std::to_string(n - done) + " nodes never became ready");
  std::vector<Value> outs;
  for (const auto& o : g.output()) {
    const Value* v = scope.find(o.name());
    if (!v) fail(path + ": output '" + o.name() + "' is never produced");
    outs.push_back(*v);
  }
  return outs;
}

void Interpreter::run_node(const onnx::NodeProto& n, Scope& scope, const std::string& path, int depth, int opset,
                           const onnx::GraphProto* graph) {
  check_deadline();
  OpCtx c{*this, n, scope, nullptr, path, opset, depth, {}, {}};
  c.graph = graph;
  c.path = path;
  c.opset = opset;
  c.depth = depth;
  for (const auto& i : n.input()) {
    if (i.empty()) {
      c.in.push_back(nullptr);
      continue;
    }
    const Value* v = scope.find(i);
    if (!v) fail("at " + path + " (" + n.op_type() + "): input '" + i + "' is not defined");
    c.in.push_back(v->kind == Value::Kind::None ? nullptr : v);
  }
  const bool std_domain = n.domain().empty() || n.domain() == "ai.onnx";
  try {
    auto lf = local_functions_.find({n.domain(), n.op_type()});
    if (lf != local_functions_.end()) {
      run_function(*lf->second, c);
    } else if (auto it = kernels().find(std_domain ? n.op_type() : n.domain() + "." + n.op_type());
               it != kernels().end()) {
      it->second(c);
    } else {
      const onnx::OpSchema* s = onnx::OpSchemaRegistry::Schema(n.op_type(), opset, n.domain());
      if (s && s->HasFunction()) {
        run_function(*s->GetFunction(), c, s);
      } else if (s && s->HasContextDependentFunction()) {
        std::vector<onnx::TypeProto> types;
        for (const Value* v : c.in) {
          onnx::TypeProto tp;
          if (v && v->is_tensor()) {
            tp.mutable_tensor_type()->set_elem_type(static_cast<int>(v->t->dt));
            auto* sh = tp.mutable_tensor_type()->mutable_shape();
            for (int64_t d : v->t->shape) sh->add_dim()->set_dim_value(d);
          }
          types.push_back(tp);
        }
        onnx::FunctionBodyBuildContextImpl ctx(n, types);
        onnx::FunctionProto fp;
        if (!s->BuildContextDependentFunction(ctx, fp))
          throw ExecError(ErrKind::Unsupported, "unsupported op " + n.op_type() + " at " + path +
                                                    " (its function body cannot be built for these inputs)");
        run_function(fp, c, s);
      } else {
        throw ExecError(ErrKind::Unsupported,
                        "unsupported op " + (n.domain().empty() ? "" : n.domain() + ".") + n.op_type() + " at " + path);
      }
    }
  } catch (const ExecError& e) {
    const std::string m = e.what();
    if (m.rfind("at ", 0) == 0 || m.rfind("unsupported op", 0) == 0) throw;
    throw ExecError(e.kind, "at " + path + " (" + n.op_type() + "): " + m);
  } catch (const std::bad_alloc&) {
    throw ExecError(ErrKind::Resource, "at " + path + " (" + n.op_type() + "): out of memory");
  } catch (const std::length_error& e) {
    throw ExecError(ErrKind::Resource, "at " + path + " (" + n.op_type() + "): " + e.what());
  } catch (const std::out_of_range& e) {
    throw ExecError(ErrKind::Invalid, "at " + path + " (" + n.op_type() + "): index out of range (" + e.what() + ")");
  }
  for (int k = 0; k < n.output_size(); ++k) {
    const auto& name = n.output(k);
    if (name.empty()) continue;
    if (static_cast<size_t>(k) < c.out.size() && c.out[k].kind != Value::Kind::None)
      scope.values[name] = std::move(c.out[k]);
    else
      fail("at " + path + " (" + n.op_type() + "): output " + std::to_string(k) + " ('" + name + "') was not produced");
  }
}

void Interpreter::run_function(const onnx::FunctionProto& f, OpCtx& c, const onnx::OpSchema* schema) {
  if (c.depth + 1 > opts.limits.max_depth)
    throw ExecError(ErrKind::Resource, "function nesting deeper than " + std::to_string(opts.limits.max_depth));
  int opset = default_opset_;
  for (const auto& op : f.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") opset = static_cast<int>(op.version());
  Scope scope;  // functions see only their own inputs
  for (int k = 0; k < f.input_size() && static_cast<size_t>(k) < c.in.size(); ++k)
    if (c.in[k]) scope.values[f.input(k)] = *c.in[k];
  for (int k = 0; k < f.node_size(); ++k) {
    onnx::NodeProto node = f.node(k);
    // Resolve attribute references to the caller's attributes; drop those the caller does not set. A reference in
    // a subgraph of the node (an If branch in the body) names the function's attribute too.
    std::vector<onnx::NodeProto*> todo{&node};
    while (!todo.empty()) {
      onnx::NodeProto* nd = todo.back();
      todo.pop_back();
      auto* attrs = nd->mutable_attribute();
      for (int a = attrs->size() - 1; a >= 0; --a) {
        auto& at = (*attrs)[a];
        if (at.ref_attr_name().empty()) {
          if (at.has_g())
            for (auto& sub : *at.mutable_g()->mutable_node()) todo.push_back(&sub);
          for (auto& g : *at.mutable_graphs())
            for (auto& sub : *g.mutable_node()) todo.push_back(&sub);
          continue;
        }
        const auto* src = c.attr(at.ref_attr_name());
        if (!src && schema) {
          auto it = schema->attributes().find(at.ref_attr_name());
          if (it != schema->attributes().end() && it->second.default_value.type() != onnx::AttributeProto::UNDEFINED)
            src = &it->second.default_value;
        }
        if (!src) {
          attrs->DeleteSubrange(a, 1);
          continue;
        }
        const std::string name = at.name();
        at = *src;
        at.set_name(name);
      }
    }
    const std::string npath = node_path::child(c.path, node_path::node_segment(node.name(), node.op_type(), k));
    run_node(node, scope, npath, c.depth + 1, opset, nullptr);
  }
  for (int k = 0; k < f.output_size(); ++k) {
    if (!c.want(k)) continue;
    const Value* v = scope.find(f.output(k));
    if (!v) fail("function " + f.name() + " does not produce output '" + f.output(k) + "'");
    c.set(k, *v);
  }
}

// ------------------------------------------------------------------ control flow
namespace {

bool condition_of(const Tensor& t, const char* what) {
  if (t.numel() != 1) fail(std::string(what) + " has " + std::to_string(t.numel()) + " elements, needs exactly 1");
  return t.getf(0) != 0.0;
}

void check_branch(OpCtx& c, const onnx::GraphProto& body, const std::vector<Value>& outs, bool branch) {
  const char* name = branch ? "then" : "else";
  if (static_cast<int>(outs.size()) != c.node.output_size()) {
    c.ip.record_branch_problem(c.path + ": " + name + " branch gives " + std::to_string(outs.size()) +
                               " outputs, the If has " + std::to_string(c.node.output_size()));
    return;
  }
  for (size_t k = 0; k < outs.size(); ++k) {
    if (body.output(static_cast<int>(k)).has_type())
      if (auto e = check_against_type(outs[k], body.output(static_cast<int>(k)).type(), false); !e.empty())
        c.ip.record_branch_problem("If '" + c.path + "' " + name + " branch output " + std::to_string(k) + " " + e +
                                   " (branch graph output)");
    if (c.graph)
      if (const auto* t = c.ip.declared_type(*c.graph, c.node.output(static_cast<int>(k))))
        if (auto e = check_against_type(outs[k], *t); !e.empty())
          c.ip.record_branch_problem("If '" + c.path + "' output " + std::to_string(k) + " from the " + name +
                                     " branch " + e);
  }
}

void k_if(OpCtx& c) {
  const bool computed = condition_of(c.t(0), "If condition");
  const bool use = c.ip.pin_for(c.path, computed);
  const auto* a = c.attr(use ? "then_branch" : "else_branch");
  if (!a || !a->has_g()) fail(std::string("If has no ") + (use ? "then_branch" : "else_branch"));
  auto outs = c.ip.run_graph(a->g(), &c.scope, {}, node_path::branch(c.path, use), c.depth + 1);
  check_branch(c, a->g(), outs, use);
  if (outs.size() < c.n_out()) fail("the branch gives fewer outputs than the If has");
  for (size_t k = 0; k < c.n_out(); ++k) c.set(k, std::move(outs[k]));
}

// Empty tensor for a scan output that never got a slice.
Value empty_scan_output(const onnx::ValueInfoProto& vi) {
  DT dt = DT::F32;
  Dims d{0};
  if (vi.type().has_tensor_type()) {
    if (dt_known(vi.type().tensor_type().elem_type())) dt = static_cast<DT>(vi.type().tensor_type().elem_type());
    const auto& sh = vi.type().tensor_type().shape();
    for (int k = 0; k < sh.dim_size(); ++k) d.push_back(sh.dim(k).has_dim_value() ? sh.dim(k).dim_value() : 0);
  }
  return Value::tensor(Tensor(dt, d));
}

void k_loop(OpCtx& c) {
  const auto* a = c.attr("body");
  if (!a || !a->has_g()) fail("Loop has no body");
  const auto& body = a->g();
  int64_t max_trip = INT64_MAX;
  if (c.has(0)) {
    if (c.t(0).numel() != 1) fail("Loop M must be a single value");
    max_trip = c.t(0).geti(0);
  }
  bool cond = true;
  if (c.has(1)) cond = condition_of(c.t(1), "Loop condition");
  const size_t n_carried = c.n_in() >= 2 ? c.n_in() - 2 : 0;
  if (body.input_size() != static_cast<int>(n_carried + 2))
    fail("Loop body takes " + std::to_string(body.input_size()) + " inputs, expected " + std::to_string(n_carried + 2));
  const size_t n_scan = body.output_size() >= static_cast<int>(n_carried + 1) ? body.output_size() - 1 - n_carried : 0;
  std::vector<Value> carried;
  for (size_t k = 0; k < n_carried; ++k) carried.push_back(c.has(k + 2) ? *c.in[k + 2] : Value());
  std::vector<std::vector<TensorP>> scans(n_scan);
  const int64_t limit = c.ip.opts.limits.max_loop_iterations;
  int64_t it = 0;
  for (; it < max_trip && cond; ++it) {
    if (it >= limit)
      throw ExecError(ErrKind::Timeout, "Loop at " + c.path + " ran " + std::to_string(limit) +
                                            " iterations without stopping (iteration limit)");
    std::vector<Value> args;
    Tensor iv(DT::I64, {});
    iv.i[0] = it;
    args.push_back(Value::tensor(std::move(iv)));
    Tensor cv(DT::Bool, {});
    cv.i[0] = cond;
    args.push_back(Value::tensor(std::move(cv)));
    for (auto& v : carried) args.push_back(v);
    auto outs = c.ip.run_graph(body, &c.scope, args, node_path::body(c.path), c.depth + 1);
    if (outs.size() != 1 + n_carried + n_scan) fail("Loop body output count changed");
    if (!outs[0].is_tensor()) fail("Loop body condition output is not a tensor");
    cond = condition_of(*outs[0].t, "Loop body condition output");
    for (size_t k = 0; k < n_carried; ++k) carried[k] = std::move(outs[1 + k]);
    for (size_t k = 0; k < n_scan; ++k) {
      auto& o = outs[1 + n_carried + k];
      if (!o.is_tensor()) fail("Loop scan output " + std::to_string(k) + " is not a tensor");
      if (!scans[k].empty() && scans[k][0]->shape != o.t->shape)
        fail("Loop scan output " + std::to_string(k) + " changes shape from " + dims_str(scans[k][0]->shape) + " to " +
             dims_str(o.t->shape));
      scans[k].push_back(o.t);
    }
  }
  for (size_t k = 0; k < n_carried && k < c.n_out(); ++k) c.set(k, carried[k]);
  for (size_t k = 0; k < n_scan && n_carried + k < c.n_out(); ++k) {
    if (scans[k].empty()) c.set(n_carried + k, empty_scan_output(body.output(static_cast<int>(1 + n_carried + k))));
    else c.set(n_carried + k, stack(scans[k], 0, DT::F32, {}));
  }
}

void k_scan(OpCtx& c) {
  if (c.opset < 9) throw ExecError(ErrKind::Unsupported, "unsupported op Scan (opset 8, with batch axis) at " + c.path);
  const auto* a = c.attr("body");
  if (!a || !a->has_g()) fail("Scan has no body");
  const auto& body = a->g();
  const int64_t m = c.attr_i("num_scan_inputs", 0);
  const int64_t n_state = static_cast<int64_t>(c.n_in()) - m;
  if (m <= 0 || n_state < 0) fail("Scan num_scan_inputs out of range");
  auto in_axes = c.attr_ints("scan_input_axes");
  auto in_dirs = c.attr_ints("scan_input_directions");
  auto out_axes = c.attr_ints("scan_output_axes");
  auto out_dirs = c.attr_ints("scan_output_directions");
  std::vector<Value> state;
  for (int64_t k = 0; k < n_state; ++k) state.push_back(c.val(k));
  int64_t len = -1;
  std::vector<int64_t> axes(m);
  for (int64_t k = 0; k < m; ++k) {
    const Tensor& x = c.t(n_state + k);
    axes[k] = norm_axis(k < static_cast<int64_t>(in_axes.size()) ? in_axes[k] : 0, x.rank());
    if (len < 0) len = x.shape[axes[k]];
    else if (len != x.shape[axes[k]]) fail("Scan inputs differ in sequence length");
  }
  const int64_t n_scan_out = body.output_size() - n_state;
  std::vector<std::vector<TensorP>> outs(n_scan_out);
  for (int64_t it = 0; it < len; ++it) {
    std::vector<Value> args = state;
    for (int64_t k = 0; k < m; ++k) {
      const bool rev = k < static_cast<int64_t>(in_dirs.size()) && in_dirs[k] == 1;
      args.push_back(Value::tensor(take_index(c.t(n_state + k), axes[k], rev ? len - 1 - it : it)));
    }
    auto r = c.ip.run_graph(body, &c.scope, args, node_path::body(c.path), c.depth + 1);
    for (int64_t k = 0; k < n_state; ++k) state[k] = r[k];
    for (int64_t k = 0; k < n_scan_out; ++k) {
      if (!r[n_state + k].is_tensor()) fail("Scan output is not a tensor");
      outs[k].push_back(r[n_state + k].t);
    }
  }
  for (int64_t k = 0; k < n_state; ++k) c.set(k, state[k]);
  for (int64_t k = 0; k < n_scan_out; ++k) {
    const bool rev = k < static_cast<int64_t>(out_dirs.size()) && out_dirs[k] == 1;
    if (rev) std::reverse(outs[k].begin(), outs[k].end());
    const int64_t r = outs[k].empty() ? 1 : static_cast<int64_t>(outs[k][0]->rank()) + 1;
    const int64_t ax = norm_axis(k < static_cast<int64_t>(out_axes.size()) ? out_axes[k] : 0, r);
    if (outs[k].empty()) c.set(n_state + k, empty_scan_output(body.output(static_cast<int>(n_state + k))));
    else c.set(n_state + k, stack(outs[k], ax, DT::F32, {}));
  }
}

void k_sequence_map(OpCtx& c) {
  const auto* a = c.attr("body");
  if (!a || !a->has_g()) fail("SequenceMap has no body");
  const Value& s0 = c.val(0);
  if (s0.kind != Value::Kind::Sequence) fail("SequenceMap input 0 is not a sequence");
  const size_t len = s0.seq->size();
  std::vector<std::vector<Value>> results(c.n_out());
  for (size_t it = 0; it < len; ++it) {
    std::vector<Value> args;
    for (size_t k = 0; k < c.n_in(); ++k) {
      const Value& v = c.val(k);
      if (v.kind == Value::Kind::Sequence) {
        if (v.seq->size() != len) fail("SequenceMap sequences differ in length");
        args.push_back((*v.seq)[it]);
      } else args.push_back(v);
    }
    auto r = c.ip.run_graph(a->g(), &c.scope, args, node_path::body(c.path), c.depth + 1);
    for (size_t k = 0; k < c.n_out() && k < r.size(); ++k) results[k].push_back(r[k]);
  }
  for (size_t k = 0; k < c.n_out(); ++k) c.set(k, Value::sequence(std::move(results[k])));
}

}  // namespace

void register_control_flow(KernelTable& t) {
  t["If"] = k_if;
  t["Loop"] = k_loop;
  t["Scan"] = k_scan;
  t["SequenceMap"] = k_sequence_map;
}

}  // namespace condlint::exec
