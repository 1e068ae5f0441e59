#include "loaders/onnx_functions.hpp"

#include <algorithm>

#include "loaders/onnx_util.hpp"

namespace condlint::onnx_functions {

namespace {

constexpr size_t kMaxKeyedData = 1024;  // constant data up to this many bytes is handed on to a body (shapes, axes)

std::string key_of(const std::string& domain, const std::string& name) { return domain + '\0' + name; }

// Calls f(node) for every node of `nodes` and of their subgraphs, iteratively.
template <class F>
void each_node(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes, F&& f) {
  std::vector<const google::protobuf::RepeatedPtrField<onnx::NodeProto>*> todo{&nodes};
  while (!todo.empty()) {
    const auto* list = todo.back();
    todo.pop_back();
    for (const auto& n : *list) {
      f(n);
      for (const auto& a : n.attribute()) {
        if (a.has_g()) todo.push_back(&a.g().node());
        for (const auto& g : a.graphs()) todo.push_back(&g.node());
      }
    }
  }
}

bool is_default_domain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

}  // namespace

std::string function_path(const onnx::FunctionProto& f) { return "function:" + f.domain() + "." + f.name(); }

FunctionIndex::FunctionIndex(const onnx::ModelProto& m) {
  for (const auto& f : m.functions()) {
    by_key_[key_of(f.domain(), f.name())] = static_cast<int>(functions_.size());
    functions_.push_back(&f);
  }
  const size_t n = functions_.size();
  std::vector<std::set<int>> callees(n);
  for (size_t f = 0; f < n; ++f)
    each_node(functions_[f]->node(), [&](const onnx::NodeProto& nd) {
      if (const int c = callee(nd); c >= 0) callees[f].insert(c);
    });
  // Recursive: f reaches itself. Each search is bounded by the function count.
  recursive_.assign(n, 0);
  for (size_t f = 0; f < n; ++f) {
    std::vector<char> seen(n, 0);
    std::vector<int> todo(callees[f].begin(), callees[f].end());
    while (!todo.empty()) {
      const int c = todo.back();
      todo.pop_back();
      if (static_cast<size_t>(c) == f) {
        recursive_[f] = 1;
        break;
      }
      if (seen[static_cast<size_t>(c)]) continue;
      seen[static_cast<size_t>(c)] = 1;
      todo.insert(todo.end(), callees[static_cast<size_t>(c)].begin(), callees[static_cast<size_t>(c)].end());
    }
  }
  // Callers first (Kahn's order over the calls between functions); what a cycle leaves follows in file order.
  std::vector<int> pending(n, 0);
  for (size_t f = 0; f < n; ++f)
    for (int c : callees[f])
      if (static_cast<size_t>(c) != f) ++pending[static_cast<size_t>(c)];
  std::vector<char> placed(n, 0);
  std::vector<int> ready;
  for (size_t f = n; f-- > 0;)
    if (pending[f] == 0) ready.push_back(static_cast<int>(f));
  while (!ready.empty()) {
    const int f = ready.back();
    ready.pop_back();
    placed[static_cast<size_t>(f)] = 1;
    order_.push_back(f);
    for (int c : callees[static_cast<size_t>(f)])
      if (c != f && --pending[static_cast<size_t>(c)] == 0) ready.push_back(c);
  }
  callers_first_.assign(n, 1);
  for (size_t f = 0; f < n; ++f)
    if (!placed[f]) {
      order_.push_back(static_cast<int>(f));
      callers_first_[f] = 0;
    }
  // A function a cycle member calls is walked after it, but its callers include that member: callers_first holds
  // only when every caller was placed before it.
  std::vector<size_t> position(n, 0);
  for (size_t i = 0; i < order_.size(); ++i) position[static_cast<size_t>(order_[i])] = i;
  for (size_t f = 0; f < n; ++f)
    for (int c : callees[f])
      if (position[static_cast<size_t>(c)] <= position[f]) callers_first_[static_cast<size_t>(c)] = 0;
}

int FunctionIndex::callee(const onnx::NodeProto& n) const {
  if (by_key_.empty()) return -1;
  const auto it = by_key_.find(key_of(n.domain(), n.op_type()));
  return it == by_key_.end() ? -1 : it->second;
}

void CallSites::add(const onnx::NodeProto& call, const std::vector<const onnx::TypeProto*>& types) {
  if (types_.size() < types.size()) {
    // An input a previous call did not pass is unknown to that call: it differs.
    types_differ_.resize(types.size(), calls_ > 0 ? 1 : 0);
    types_.resize(types.size(), nullptr);
  }
  for (size_t k = 0; k < types_.size(); ++k) {
    const onnx::TypeProto* t = k < types.size() ? types[k] : nullptr;
    if (calls_ == 0) types_[k] = t;
    else if (types_[k] != t) types_differ_[k] = 1;
    if (!t) types_differ_[k] = 1;
  }
  std::set<std::string> here;
  for (const auto& a : call.attribute()) {
    here.insert(a.name());
    if (attrs_differ_.count(a.name())) continue;
    auto it = attrs_.find(a.name());
    if (it == attrs_.end()) {
      if (calls_ == 0) attrs_.emplace(a.name(), a);
      else attrs_differ_.insert(a.name());  // absent from an earlier call
    } else if (it->second.SerializeAsString() != a.SerializeAsString()) {
      attrs_differ_.insert(a.name());
    }
  }
  for (const auto& [name, value] : attrs_)
    if (!here.count(name)) attrs_differ_.insert(name);
  ++calls_;
}

const onnx::TypeProto* CallSites::type(int k) const {
  if (unknown_ || calls_ == 0 || k < 0 || static_cast<size_t>(k) >= types_.size() || types_differ_[k]) return nullptr;
  return types_[static_cast<size_t>(k)];
}

const onnx::AttributeProto* CallSites::attribute(const std::string& name) const {
  if (unknown_ || calls_ == 0 || attrs_differ_.count(name)) return nullptr;
  const auto it = attrs_.find(name);
  return it == attrs_.end() ? nullptr : &it->second;
}

bool has_attribute_reference(const onnx::NodeProto& n) {
  for (const auto& a : n.attribute())
    if (!a.ref_attr_name().empty()) return true;
  return false;
}

namespace {

// Replaces each attribute reference of `n` whose value `value_of` gives; true when one is left.
template <class F>
bool resolve_references(onnx::NodeProto& n, F&& value_of) {
  bool left = false;
  for (auto& a : *n.mutable_attribute()) {
    if (a.ref_attr_name().empty()) continue;
    const onnx::AttributeProto* v = value_of(a.ref_attr_name());
    if (!v) {
      left = true;
      continue;
    }
    const std::string name = a.name();
    a = *v;
    a.set_name(name);
    a.clear_ref_attr_name();
  }
  return left;
}

}  // namespace

void body_graph(const onnx::FunctionProto& f, const CallSites& sites, onnx::GraphProto& out) {
  out.Clear();
  out.set_name(f.name());
  for (int k = 0; k < f.input_size(); ++k) {
    auto* vi = out.add_input();
    vi->set_name(f.input(k));
    if (const onnx::TypeProto* t = sites.type(k)) *vi->mutable_type() = *t;
  }
  for (const auto& o : f.output()) out.add_output()->set_name(o);
  *out.mutable_node() = f.node();
  std::vector<google::protobuf::RepeatedPtrField<onnx::NodeProto>*> todo{out.mutable_node()};
  while (!todo.empty()) {
    auto* list = todo.back();
    todo.pop_back();
    for (auto& n : *list) {
      (void)resolve_references(n, [&](const std::string& name) { return sites.attribute(name); });
      for (auto& a : *n.mutable_attribute()) {
        if (a.has_g()) todo.push_back(a.mutable_g()->mutable_node());
        for (auto& g : *a.mutable_graphs()) todo.push_back(g.mutable_node());
      }
    }
  }
}

void CallTyper::type_call(int f, const onnx::NodeProto& call, const std::vector<const onnx::TypeProto*>& in,
                          const std::vector<const onnx::TensorProto*>& data, std::vector<const onnx::TypeProto*>& out,
                          std::string* why) {
  std::fill(out.begin(), out.end(), nullptr);
  if (why) why->clear();
  if (f < 0 || f >= index_.size() || index_.recursive(f) || active_.count(f) ||
      static_cast<int>(active_.size()) >= kMaxCallDepth || spent_ > kTypingBudget)
    return;
  const onnx::FunctionProto& fp = index_.function(f);
  // The memo key: the function, the call's attributes, each input's type (interned: its address) and small data.
  std::string key = std::to_string(f);
  for (const auto& a : call.attribute()) {
    const std::string bytes = a.SerializeAsString();
    key += '\1' + std::to_string(bytes.size()) + ':' + bytes;
  }
  std::vector<const onnx::TensorProto*> kept(fp.input_size(), nullptr);
  for (int k = 0; k < fp.input_size(); ++k) {
    const onnx::TypeProto* t = static_cast<size_t>(k) < in.size() ? in[static_cast<size_t>(k)] : nullptr;
    key.append(reinterpret_cast<const char*>(&t), sizeof t);
    const onnx::TensorProto* d = static_cast<size_t>(k) < data.size() ? data[static_cast<size_t>(k)] : nullptr;
    if (d && d->ByteSizeLong() <= kMaxKeyedData) {
      kept[static_cast<size_t>(k)] = d;
      const std::string bytes = d->SerializeAsString();
      key += '\2' + std::to_string(bytes.size()) + ':' + bytes;
    } else {
      key += '\3';
    }
  }
  if (const auto hit = memo_.find(key); hit != memo_.end()) {
    for (size_t k = 0; k < out.size() && k < hit->second.out.size(); ++k) out[k] = hit->second.out[k];
    if (why) *why = hit->second.why;
    return;
  }
  const std::string outer_failure = std::move(failure_);  // the caller's, while this call is typed
  failure_.clear();
  active_.insert(f);
  Scope scope(1);
  for (int k = 0; k < fp.input_size(); ++k)
    if (!fp.input(k).empty())
      scope[0][fp.input(k)] = {static_cast<size_t>(k) < in.size() ? in[static_cast<size_t>(k)] : nullptr,
                               kept[static_cast<size_t>(k)]};
  walk_nodes(fp.node(), call, scope, static_cast<int>(active_.size()), 0);
  std::vector<const onnx::TypeProto*> result(static_cast<size_t>(fp.output_size()), nullptr);
  for (int k = 0; k < fp.output_size(); ++k)
    if (const auto it = scope[0].find(fp.output(k)); it != scope[0].end())
      result[static_cast<size_t>(k)] = it->second.type;
  active_.erase(f);
  for (size_t k = 0; k < out.size() && k < result.size(); ++k) out[k] = result[k];
  if (why) *why = failure_;
  Typed typed{std::move(result), std::move(failure_)};
  failure_ = outer_failure;
  memo_.emplace(std::move(key), std::move(typed));
}

void CallTyper::walk_nodes(const google::protobuf::RepeatedPtrField<onnx::NodeProto>& nodes,
                           const onnx::NodeProto& call, Scope& scope, int depth, int nesting) {
  for (const auto& n : nodes) {
    if (++spent_ > kTypingBudget) return;
    type_node(n, call, scope, depth, nesting);
  }
}

void CallTyper::type_node(const onnx::NodeProto& node, const onnx::NodeProto& call, Scope& scope, int depth,
                          int nesting) {
  std::vector<const onnx::TypeProto*> out(static_cast<size_t>(node.output_size()), nullptr);
  const onnx::TensorProto* constant = nullptr;
  // Attribute references take the call's values; a node with one the call does not set is not typed (its operator
  // would read its own default, which need not be the function's).
  onnx::NodeProto resolved;
  const onnx::NodeProto* n = &node;
  bool unresolved = false;
  if (has_attribute_reference(node)) {
    resolved = node;
    unresolved = resolve_references(resolved, [&](const std::string& name) -> const onnx::AttributeProto* {
      for (const auto& a : call.attribute())
        if (a.name() == name) return &a;
      return nullptr;
    });
    n = &resolved;
  }
  auto lookup = [&](const std::string& name) -> Slot {
    for (auto it = scope.rbegin(); it != scope.rend(); ++it)
      if (const auto f = it->find(name); f != it->end()) return f->second;
    return {};
  };
  bool has_graphs = false;
  for (const auto& a : n->attribute())
    if (a.has_g() || a.graphs_size() > 0) has_graphs = true;
  if (!unresolved) {
    std::vector<const onnx::TypeProto*> in;
    std::vector<const onnx::TensorProto*> data;
    for (const auto& name : n->input()) {
      const Slot s = name.empty() ? Slot{} : lookup(name);
      in.push_back(s.type);
      data.push_back(s.data);
    }
    const int f = index_.callee(*n);
    if (f >= 0) {
      if (depth < kMaxCallDepth) {
        std::string failed;
        type_call(f, *n, in, data, out, &failed);
        if (!failed.empty() && failure_.empty())
          failure_ = "the call " + n->op_type() + " '" + n->name() + "': " + failed;
      }
    } else if (has_graphs) {
      const onnx::GraphProto* branch[2] = {nullptr, nullptr};
      if (n->op_type() == "If" && is_default_domain(n->domain()))
        for (const auto& a : n->attribute()) {
          if (a.name() == "then_branch" && a.has_g()) branch[0] = &a.g();
          if (a.name() == "else_branch" && a.has_g()) branch[1] = &a.g();
        }
      // An If: what either branch may give. Other graph-holding operators (Loop, Scan) stay unknown.
      if (branch[0] && branch[1] && nesting < kMaxNesting) {
        const auto a = branch_outputs(*branch[0], call, scope, depth, nesting + 1);
        const auto b = branch_outputs(*branch[1], call, scope, depth, nesting + 1);
        for (size_t k = 0; k < out.size() && k < a.size() && k < b.size(); ++k) out[k] = hooks_.unite(a[k], b[k]);
      }
    } else {
      bool all = true;
      for (size_t i = 0; i < in.size(); ++i)
        if (!n->input(static_cast<int>(i)).empty() && !in[i]) all = false;
      if (all) {
        std::string failed = hooks_.infer_node(*n, in, data, out);
        if (!failed.empty() && failure_.empty()) failure_ = std::move(failed);
      } else if (const onnx::TypeProto* t = input_free_type(*n)) {
        out[0] = t;
      }
      if (n->op_type() == "Constant" && is_default_domain(n->domain()))
        for (const auto& a : n->attribute())
          if (a.name() == "value" && a.has_t() && a.t().data_location() != onnx::TensorProto::EXTERNAL &&
              measure_tensor(a.t()).holds_dims() && a.t().ByteSizeLong() <= kMaxKeyedData)
            constant = &a.t();
    }
  }
  for (int k = 0; k < n->output_size(); ++k)
    if (!n->output(k).empty())
      scope.back()[node.output(k)] = {out[static_cast<size_t>(k)], k == 0 && n == &node ? constant : nullptr};
}

// Shape and Size give an int64 tensor of rank 1 and an int64 scalar whatever tensor they read, so a body walked
// with an unknown input still types a rank test (torch_lib's Rank and IsScalar: Size(Shape(x))) as onnx does.
const onnx::TypeProto* CallTyper::input_free_type(const onnx::NodeProto& n) {
  if (!is_default_domain(n.domain()) || n.output_size() < 1 || n.output(0).empty()) return nullptr;
  const bool shape = n.op_type() == "Shape", size = n.op_type() == "Size";
  if (!shape && !size) return nullptr;
  onnx::TypeProto t;
  t.mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
  auto* dims = t.mutable_tensor_type()->mutable_shape();
  if (shape) dims->add_dim();
  return hooks_.keep(t);
}

std::vector<const onnx::TypeProto*> CallTyper::branch_outputs(const onnx::GraphProto& g, const onnx::NodeProto& call,
                                                              Scope& scope, int depth, int nesting) {
  std::vector<const onnx::TypeProto*> out(static_cast<size_t>(g.output_size()), nullptr);
  scope.emplace_back();
  for (const auto& in : g.input()) scope.back()[in.name()] = {};  // a branch input hides an outer name
  for (const auto& t : g.initializer()) scope.back()[t.name()] = {};
  walk_nodes(g.node(), call, scope, depth, nesting);
  for (int k = 0; k < g.output_size(); ++k) {
    const auto& o = g.output(k);
    if (o.has_type() && o.type().value_case() != onnx::TypeProto::VALUE_NOT_SET) {
      out[static_cast<size_t>(k)] = hooks_.keep(o.type());
      continue;
    }
    for (auto it = scope.rbegin(); it != scope.rend(); ++it)
      if (const auto f = it->find(o.name()); f != it->end()) {
        out[static_cast<size_t>(k)] = f->second.type;
        break;
      }
  }
  scope.pop_back();
  return out;
}

}  // namespace condlint::onnx_functions
