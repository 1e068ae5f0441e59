// ONNX loader, the walk and its scopes: one iterative walk over every graph, one Node per NodeProto, every name
// resolved through the chain of enclosing scopes (one hash map of the names visible now; each value links to the one
// it hides; entries pushed as a graph defines them and popped as the walk leaves it), the undefined reads,
// redefinitions and outer outputs recorded, and each subgraph freed once its node is finished.
#include "loaders/onnx_builder.hpp"
#include "loaders/onnx_wire.hpp"
#include "model/node_path.hpp"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstring>
#include <set>

namespace condlint::onnx_build {

namespace {

// The stored values of an initializer as one field's bytes (fixed-width fields) or integers (varint fields), read
// where they lie: in the message, or in the mapping a slimmed payload was left in. False when they cannot be read
// here (external data).
struct StoredValues {
  PayloadField field = PayloadField::Raw;
  std::string_view bytes;
  std::vector<int64_t> ints;
  std::shared_ptr<const io::MappedFile> keep;
};

template <class R>
std::string_view bytes_of(const R& field) {
  return {reinterpret_cast<const char*>(field.data()), field.size() * sizeof(*field.data())};
}

template <class R>
void ints_of(const R& field, std::vector<int64_t>& out) {
  out.assign(field.begin(), field.end());
}

bool stored_values(const onnx::TensorProto& t, StoredValues& v) {
  if (is_mapped_payload(t)) {
    if (!mapped_payload(t, v.bytes, v.keep, &v.field)) return false;
    if (v.field == PayloadField::Int32 || v.field == PayloadField::Int64 || v.field == PayloadField::Uint64) {
      if (for_each_packed_varint(v.bytes, [&](uint64_t x) { v.ints.push_back(static_cast<int64_t>(x)); }) < 0)
        return false;
      v.bytes = {};
    }
    return true;
  }
  if (t.data_location() == onnx::TensorProto::EXTERNAL) return false;
  if (!t.raw_data().empty()) v.bytes = t.raw_data();
  else if (t.float_data_size()) v.field = PayloadField::Float, v.bytes = bytes_of(t.float_data());
  else if (t.double_data_size()) v.field = PayloadField::Double, v.bytes = bytes_of(t.double_data());
  else if (t.int32_data_size()) v.field = PayloadField::Int32, ints_of(t.int32_data(), v.ints);
  else if (t.int64_data_size()) v.field = PayloadField::Int64, ints_of(t.int64_data(), v.ints);
  else if (t.uint64_data_size()) v.field = PayloadField::Uint64, ints_of(t.uint64_data(), v.ints);
  return true;
}

// Same element type, dims and stored values (in the same field; strings compared whole).
bool same_initializer_value(const onnx::TensorProto& a, const onnx::TensorProto& b) {
  if (a.data_type() != b.data_type() || a.dims_size() != b.dims_size()) return false;
  for (int k = 0; k < a.dims_size(); ++k)
    if (a.dims(k) != b.dims(k)) return false;
  if (a.string_data_size() || b.string_data_size()) {
    if (a.string_data_size() != b.string_data_size()) return false;
    for (int k = 0; k < a.string_data_size(); ++k)
      if (a.string_data(k) != b.string_data(k)) return false;
    return true;
  }
  StoredValues va, vb;
  if (!stored_values(a, va) || !stored_values(b, vb)) return false;
  return va.field == vb.field && va.bytes == vb.bytes && va.ints == vb.ints;
}

}  // namespace

std::string OnnxBuilder::where(int g) const {
  if (g <= 0) return "the main graph";
  const Graph& gr = model_->graphs[g];
  if (gr.parent_graph < 0) return "function " + qname(std::string_view(gr.role).substr(gr.role.find(':') + 1));
  const Node& parent = model_->graphs[gr.parent_graph].nodes[gr.parent_node];
  return onnx_attribute_of_role(parent.op, gr.role) + " of " + parent.op + " " + qname(parent.name);
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
    // Built in a scratch message and interned (define, below): a model of a million tiny initializers has a handful
    // of distinct types, and a message kept per initializer was a third of its memory.
    onnx::TypeProto& tp = init_type_scratch_;
    tp.Clear();
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
        const Interned& t = intern(tp);
        v.tp = t.tp;
        v.typed = &t;
      }
      return;
    }
    Value v;
    v.src = Value::Initializer;
    v.name = name;
    v.tp = &tp;
    if (!sparse && data_ok && !too_many_dims && t.data_location() != onnx::TensorProto::EXTERNAL) v.data = &t;
    v.tainted = !data_ok || too_many_dims;  // its dims are in doubt: what follows from them is not reported again
    const bool equal = sub && !sparse && seen >= 0 && equals_outer_initializer(t, values_[seen], g);
    const size_t before = data_->redefinitions.size();
    define(g, std::move(v), sub);
    if (equal && data_->redefinitions.size() > before) data_->redefinitions.back().equal_value = true;
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

// Whether initializer `t` of graph g holds what `outer`, the value of its name in an enclosing graph, holds: outer is
// an initializer (not a graph input, which a caller may feed) of the same element type, dims and stored values.
bool OnnxBuilder::equals_outer_initializer(const onnx::TensorProto& t, const Value& outer, int g) const {
  if (outer.src != Value::Initializer || outer.graph == g || outer.graph < 0 || !gi_[outer.graph].proto) return false;
  for (const auto& o : gi_[outer.graph].proto->initializer())
    if (o.name() == t.name()) return same_initializer_value(t, o);
  return false;
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

Port OnnxBuilder::port_of(std::string_view name, int value_id) const {
  Port p;
  p.id = std::string(name);
  if (value_id >= 0 && values_[value_id].typed) p.set_type(values_[value_id].typed->vt);
  return p;
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
    // As the executor names it (model/node_path: "OpType#index" for a node without a name).
    node.name = np.name().empty() ? node_path::node_segment("", node.op.str(), static_cast<size_t>(f.next)) : np.name();
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

}  // namespace condlint::onnx_build
