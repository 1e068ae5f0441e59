// OpenVINO IR -> ONNX. The IR is read with the lint loader (load_ir), as the IR executor reads it
// (src/exec/ir_exec.cpp), and every op is translated into ONNX nodes that compute exactly what the IR
// executor computes. What has no exact ONNX form becomes a problem naming the node; no model is written then.
//
// Graphs are translated with an explicit work stack (bodies can nest thousands deep): an If or Loop creates
// its body GraphProtos and queues them; protobuf keeps sub-messages at stable addresses, so the queued
// pointers stay valid while the parent graph grows.
#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "onnx_graph/if_sites.hpp"
#include "exec/ir_exec.hpp"
#include "exec/ir_onnx_ops.hpp"
#include "exec/onnx_io.hpp"
#include "export/export.hpp"
#include "model/graph_order.hpp"
#include "loaders/loader.hpp"

namespace condlint::xport {

namespace {

using exec::DT;

using exec::dt_of;

// Why an element type has no export.
std::string no_onnx_type(ElemType e) {
  const std::string n(to_string(e));
  switch (e) {
    case ElemType::I4:
    case ElemType::U4:
      return "element type " + n +
             ": ONNX has 4-bit integers only from opset 21 (INT4/UINT4), packed differently, and "
             "condlint's executors cannot run them";
    case ElemType::F8E4M3:
    case ElemType::F8E5M2:
      return "element type " + n +
             ": ONNX has 8-bit floats only from opset 19 and condlint's executors cannot run them";
    case ElemType::String: return "element type string: OpenVINO strings have no ONNX tensor layout to export";
    case ElemType::Complex64:
    case ElemType::Complex128: return "element type " + n + ": ONNX runtimes do not compute complex tensors";
    default: return "element type " + n + " has no ONNX equivalent";
  }
}

int64_t ir_version_for(int64_t opset) {
  if (opset <= 14) return 7;
  if (opset <= 18) return 8;
  if (opset <= 20) return 9;
  return 10;
}

bool parse_bool(const std::string& v, bool& out) {
  if (v == "true" || v == "1" || v == "True") return out = true, true;
  if (v == "false" || v == "0" || v == "False") return out = false, true;
  return false;
}

std::optional<std::vector<int64_t>> parse_int_list(const std::string& s) { return parse_int64_list(s); }

// A declared shape worth writing into a ValueInfo: the port lists its dims.
std::optional<Shape> port_shape(const Port& p) {
  if (p.attrs_no_dims || !p.shape().rank_known) return std::nullopt;
  return p.shape();
}

void set_type(onnx::ValueInfoProto& vi, ElemType e, const std::optional<Shape>& s) {
  auto* tt = vi.mutable_type()->mutable_tensor_type();
  tt->set_elem_type(static_cast<int>(*dt_of(e)));
  if (!s) return;
  auto* sh = tt->mutable_shape();
  for (const auto& d : s->dims) {
    auto* dim = sh->add_dim();
    if (d.is_static()) dim->set_dim_value(d.lo);
  }
}

class Exporter {
 public:
  Exporter(const Model& m, const ExportOptions& o, ExportResult& r) : m_(m), o_(o), r_(r) {
    for (size_t k = 0; k < m.ir->consts.size(); ++k) consts_[{m.ir->consts[k].graph, m.ir->consts[k].node}] = k;
    for (size_t k = 0; k < m.ir->ifs.size(); ++k) ifs_[{m.ir->ifs[k].graph, m.ir->ifs[k].node}] = k;
  }

  void run() {
    auto& model = r_.model;
    model.set_ir_version(ir_version_for(o_.opset));
    model.set_producer_name("condlint");
    model.set_producer_version(CONDLINT_VERSION);
    auto* os = model.add_opset_import();
    os->set_domain("");
    os->set_version(o_.opset);
    auto* g = model.mutable_graph();
    g->set_name("main");
    g->set_doc_string("exported by condlint from the OpenVINO IR " + m_.path);
    Work w;
    w.g = 0;
    w.gp = g;
    paths_.push_back({-1, "main"});
    w.path = 0;
    w.main = true;
    const auto& nodes = m_.graphs[0].nodes;
    for (int k = 0; k < static_cast<int>(nodes.size()); ++k) {
      if (nodes[k].op == "Parameter") {
        const Node& p = nodes[k];
        const std::string name = fresh(p.display());
        w.bound[k] = name;
        auto* vi = g->add_input();
        vi->set_name(name);
        ElemType e = param_elem(p);
        if (!is_concrete(e)) problem(0, k, "Parameter has no element type; an ONNX graph input needs one");
        else if (!dt_of(e)) problem(0, k, no_onnx_type(e));
        else {
          const auto shape = param_shape(p);
          set_type(*vi, e, shape);
          if (!shape || !shape->rank_known)
            note("input '" + name +
                 "' has a dynamic rank; ONNX states that by leaving out the shape (runtimes accept "
                 "it, onnx.checker wants a rank on main-graph inputs)");
        }
      } else if (nodes[k].op == "Result") {
        w.outs.push_back({k, fresh(nodes[k].display()), OutSpec::Plain, ""});
      }
    }
    std::vector<Work> stack;
    stack.push_back(std::move(w));
    while (!stack.empty()) {
      Work cur = std::move(stack.back());
      stack.pop_back();
      std::vector<Work> children;
      build(cur, children);
      for (auto c = children.rbegin(); c != children.rend(); ++c) stack.push_back(std::move(*c));
    }
  }

 private:
  struct OutSpec {
    int result = -1;
    std::string name;
    enum Kind { Plain, CondScalar, PassThrough } kind = Plain;
    std::string pass;  // PassThrough: the value to output
  };
  struct Work {
    int g = 0;
    onnx::GraphProto* gp = nullptr;
    int path = 0;  // ONNX path of the graph, as onnx_graph::find_ifs names it (an index into paths_)
    std::map<int, std::string> bound;  // Parameter node -> value name
    std::map<int, ElemType> bound_elem;
    std::vector<OutSpec> outs;
    bool main = false;
  };

  // ---------- names, problems, helpers ----------

  std::string fresh(const std::string& hint) {
    std::string base = hint.empty() ? "v" : hint;
    if (used_.insert(base).second) return base;
    for (;;) {
      std::string s = base + "_" + std::to_string(++counter_);
      if (used_.insert(s).second) return s;
    }
  }

  void problem(int g, int k, const std::string& why) {
    const Node& n = m_.node(g, k);
    r_.problems.push_back(m_.path_of(g, k) + " (" + n.op + "): " + why);
  }
  void note(const std::string& s) {
    if (std::find(r_.notes.begin(), r_.notes.end(), s) == r_.notes.end()) r_.notes.push_back(s);
  }

  ElemType param_elem(const Node& p) const {
    if (const std::string* v = p.attrs.find("element_type"))
      if (auto e = parse_ov_elem_type(*v)) return *e;
    if (!p.outputs.empty() && p.outputs[0].type().kind == TypeDesc::Kind::Tensor) return p.outputs[0].type().elem;
    return ElemType::Unknown;
  }
  std::optional<Shape> param_shape(const Node& p) const {
    if (const std::string* v = p.attrs.find("shape"))
      if (auto s = parse_ov_shape(*v)) return s;
    if (!p.outputs.empty()) return port_shape(p.outputs[0]);
    return std::nullopt;
  }

  std::string attr(const Node& n, const std::string& name, const std::string& def) const {
    const std::string* v = n.attrs.find(name);
    return v ? *v : def;
  }

  onnx::NodeProto* add(onnx::GraphProto* gp, const std::string& op, const std::vector<std::string>& ins,
                       const std::vector<std::string>& outs, const std::string& name) {
    auto* n = gp->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : ins) n->add_input(i);
    for (const auto& o : outs) n->add_output(o);
    return n;
  }
  static void set_i(onnx::NodeProto* n, const std::string& name, int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void set_ints(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  static void set_s(onnx::NodeProto* n, const std::string& name, const std::string& v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(v);
  }
  // A Constant node holding an int64 tensor (dims empty = scalar).
  std::string const_i64(onnx::GraphProto* gp, const std::vector<int64_t>& v, const std::vector<int64_t>& dims,
                        const std::string& hint) {
    const std::string name = fresh(hint);
    auto* n = add(gp, "Constant", {}, {name}, name);
    auto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    auto* t = a->mutable_t();
    t->set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t x : v) t->add_int64_data(x);
    return name;
  }
  std::string const_scalar(onnx::GraphProto* gp, DT dt, int64_t v, const std::string& hint) {
    const std::string name = fresh(hint);
    auto* n = add(gp, "Constant", {}, {name}, name);
    auto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    exec::Tensor t(dt, {});
    if (exec::is_float(dt)) t.f[0] = static_cast<double>(v);
    else t.i[0] = v;
    exec::tensor_to_proto(t, *a->mutable_t());
    return name;
  }
  std::string cast(onnx::GraphProto* gp, const std::string& x, DT to, const std::string& hint) {
    const std::string out = fresh(hint);
    set_i(add(gp, "Cast", {x}, {out}, out), "to", static_cast<int>(to));
    return out;
  }

  // ---------- Const data ----------

  // Reads a Const's bytes from the .bin; "" and a problem on failure.
  bool const_proto(int g, int k, onnx::TensorProto& tp) {
    auto it = consts_.find({g, k});
    if (it == consts_.end()) return problem(g, k, "Const without data (no element_type/shape/offset/size)"), false;
    const IrConst& c = m_.ir->consts[it->second];
    if (!is_concrete(c.elem)) return problem(g, k, "Const has no element type"), false;
    auto dt = dt_of(c.elem);
    if (!dt) return problem(g, k, no_onnx_type(c.elem)), false;
    if (!c.shape || !c.shape->is_static()) return problem(g, k, "Const has no static shape"), false;
    const auto count = c.shape->element_count();
    if (!count) return problem(g, k, "Const shape " + c.shape->str() + " is too large"), false;
    const uint64_t bytes = *count * exec::dt_bytes(*dt);
    if (!c.offset || !c.size) return problem(g, k, "Const has no offset/size"), false;
    if (*c.size < 0 || static_cast<uint64_t>(*c.size) != bytes)
      return problem(g, k,
                     "Const size " + std::to_string(*c.size) + " does not match " + std::string(to_string(c.elem)) +
                         c.shape->str() + " (" + std::to_string(bytes) + " bytes)"),
             false;
    if (!m_.ir->weights_size)
      return problem(g, k, "the weights file " + m_.ir->weights_path + " does not exist"), false;
    if (*c.offset < 0 || static_cast<uint64_t>(*c.offset) > *m_.ir->weights_size ||
        bytes > *m_.ir->weights_size - static_cast<uint64_t>(*c.offset))
      return problem(g, k,
                     "Const bytes [" + std::to_string(*c.offset) + ", +" + std::to_string(bytes) +
                         ") lie outside the weights file"),
             false;
    std::string buf(static_cast<size_t>(bytes), '\0');
    std::ifstream f(m_.ir->weights_path, std::ios::binary);
    f.seekg(*c.offset);
    if (bytes && !f.read(buf.data(), static_cast<std::streamsize>(bytes)))
      return problem(g, k, "cannot read the weights file " + m_.ir->weights_path), false;
    if (*dt == DT::Bool)
      for (char& ch : buf) ch = ch != 0 ? 1 : 0;
    tp.set_data_type(static_cast<int>(*dt));
    for (const auto& d : c.shape->dims) tp.add_dims(d.lo);
    tp.set_raw_data(std::move(buf));
    return true;
  }

  // The integer values of a Const feeding input `i` of node k (small tensors only), or nullopt.
  std::optional<std::vector<int64_t>> const_ints(int g, int k, size_t i) {
    const Node& n = m_.node(g, k);
    if (i >= n.sources.size() || !n.sources[i].valid()) return std::nullopt;
    const ValueRef& s = n.sources[i];
    if (s.graph != g) return std::nullopt;
    const Node& src = m_.node(s.graph, s.node);
    if (src.op != "Const" && src.op != "Constant") return std::nullopt;
    auto it = consts_.find({s.graph, s.node});
    if (it == consts_.end()) return std::nullopt;
    const IrConst& c = m_.ir->consts[it->second];
    auto dt = dt_of(c.elem);
    if (!dt || exec::is_float(*dt) || !c.shape || !c.shape->is_static()) return std::nullopt;
    const auto count = c.shape->element_count();
    if (!count || *count > 4096) return std::nullopt;
    onnx::TensorProto tp;
    const size_t before = r_.problems.size();
    if (!const_proto(s.graph, s.node, tp)) {
      r_.problems.resize(before);  // reported where the Const itself is exported
      return std::nullopt;
    }
    try {
      const exec::Tensor t = exec::tensor_from_proto(tp);
      std::vector<int64_t> v;
      for (int64_t e = 0; e < t.numel(); ++e) v.push_back(t.geti(e));
      return v;
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }

  // ---------- one graph ----------

  struct GraphState {
    std::vector<std::vector<std::string>> names;  // node -> output -> value name
    std::vector<std::vector<ElemType>> elems;     // node -> output -> element type (Unknown when not known)
  };

  ElemType elem_in(const GraphState& st, const Node& n, size_t i) const {
    if (i >= n.sources.size() || !n.sources[i].valid()) return ElemType::Unknown;
    const ValueRef& s = n.sources[i];
    if (s.node >= static_cast<int>(st.elems.size()) || s.output >= static_cast<int>(st.elems[s.node].size()))
      return ElemType::Unknown;
    return st.elems[s.node][s.output];
  }

  // A value as int64 (Cast unless known i64) and, when `flat`, as a 1-D tensor.
  std::string as_i64(onnx::GraphProto* gp, GraphState& st, int g, int k, size_t i, const std::vector<std::string>& in,
                     bool flat, const std::string& hint) {
    if (auto v = const_ints(g, k, i)) {
      std::vector<int64_t> dims;
      if (flat) dims.push_back(static_cast<int64_t>(v->size()));
      else if (auto it = consts_.find({m_.node(g, k).sources[i].graph, m_.node(g, k).sources[i].node});
               it != consts_.end())
        for (const auto& d : m_.ir->consts[it->second].shape->dims) dims.push_back(d.lo);
      return const_i64(gp, *v, dims, hint);
    }
    std::string x = in[i];
    if (elem_in(st, m_.node(g, k), i) != ElemType::I64) x = cast(gp, x, DT::I64, hint + "_i64");
    if (flat) {
      const std::string shp = const_i64(gp, {-1}, {1}, hint + "_flat_shape");
      const std::string out = fresh(hint + "_flat");
      add(gp, "Reshape", {x, shp}, {out}, out);
      x = out;
    }
    return x;
  }

  bool broadcast_ok(int g, int k) {
    const Node& n = m_.node(g, k);
    const std::string ab = attr(n, "auto_broadcast", "numpy");
    if (ab == "numpy") return true;
    if (ab == "none") {
      // ONNX always broadcasts numpy-style; exact only when the shapes are known to be equal.
      std::optional<Shape> first;
      for (const auto& p : n.inputs) {
        auto s = port_shape(p);
        if (!s || !s->is_static()) {
          problem(g, k,
                  "auto_broadcast=none with shapes not known statically: ONNX would broadcast where OpenVINO refuses");
          return false;
        }
        if (!first) first = s;
        else if (!(*first == *s)) {
          problem(g, k, "auto_broadcast=none with different input shapes " + first->str() + " and " + s->str());
          return false;
        }
      }
      return true;
    }
    problem(g, k, "auto_broadcast=" + ab + " has no ONNX equivalent");
    return false;
  }

  void build(Work& w, std::vector<Work>& children) {
    const int g = w.g;
    const auto& nodes = m_.graphs[g].nodes;
    const int n = static_cast<int>(nodes.size());
    GraphState st;
    st.names.resize(n);
    st.elems.resize(n);
    // Topological order, as the IR executor runs it (lowest ready index first).
    const std::vector<int> order = topological_order(m_, g, /*self_loop_blocks=*/false);
    std::set<std::string> control_names;  // If/Loop node names in this graph (paths must be unique)
    for (const int k : order) build_layer(w, st, k, children, control_names);
    if (static_cast<int>(order.size()) != n)
      problem_graph(g, "the graph has a cycle; " + std::to_string(n - static_cast<int>(order.size())) +
                           " layers never become ready");
    add_outputs(w, st);
  }

  // Layer k of w's graph, in topological order: its value names and element types in `st`, its ONNX nodes in w.gp.
  void build_layer(Work& w, GraphState& st, int k, std::vector<Work>& children, std::set<std::string>& control_names) {
    const int g = w.g;
    const Node& node = m_.graphs[g].nodes[k];
    st.names[k].assign(std::max<size_t>(node.outputs.size(), 1), "");
    st.elems[k].assign(st.names[k].size(), ElemType::Unknown);
    for (size_t o = 0; o < node.outputs.size(); ++o)
      if (node.outputs[o].type().kind == TypeDesc::Kind::Tensor) st.elems[k][o] = node.outputs[o].type().elem;
    // Declared element types ONNX cannot hold.
    bool type_bad = false;
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      const ElemType e = node.outputs[o].type().elem;
      if (node.outputs[o].type().kind == TypeDesc::Kind::Tensor && is_concrete(e) && !dt_of(e)) {
        problem(g, k, "output " + std::to_string(o) + ": " + no_onnx_type(e));
        type_bad = true;
      }
    }
    if (type_bad) return;
    if (node.op == "Parameter") {
      bind_parameter(w, st, k);
      return;
    }
    std::vector<std::string> in;
    if (!input_names(w, st, k, in)) return;
    if (node.op == "Result") {
      if (in.empty()) {
        problem(g, k, "Result has no input");
        return;
      }
      st.names[k][0] = in[0];
      st.elems[k][0] = elem_in(st, node, 0);
      if (node.inputs.size() == 1 && node.inputs[0].type().kind == TypeDesc::Kind::Tensor &&
          is_concrete(node.inputs[0].type().elem) && !is_concrete(st.elems[k][0]))
        st.elems[k][0] = node.inputs[0].type().elem;
      return;
    }
    for (size_t o = 0; o < st.names[k].size(); ++o)
      st.names[k][o] = fresh(node.display() + (o ? ":" + std::to_string(o) : ""));
    const size_t before = r_.problems.size();
    if (!translate(w, st, k, in, children, control_names)) {
      if (r_.problems.size() == before) problem(g, k, "cannot be exported");
      for (auto& s : st.names[k]) s.clear();
      return;
    }
    // value_info: element types. Shapes only on the graphs' inputs and outputs: IR files state inner shapes
    // that nothing checks (hand-written bodies declare the concatenated shape inside a Loop body, say), and
    // ONNX shape inference would reject the model for a claim the computation never relied on.
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      const ElemType e = st.elems[k][o];
      if (!is_concrete(e) || !dt_of(e) || st.names[k][o].empty()) continue;
      auto* vi = w.gp->add_value_info();
      vi->set_name(st.names[k][o]);
      // An If's declared outputs are an interface the IR executor checks every branch against: keep them.
      set_type(*vi, e, node.op == "If" ? port_shape(node.outputs[o]) : std::nullopt);
    }
  }

  // A body Parameter: the value its port map binds, with that value's element type (the IR executor does not
  // convert, so the bound type wins over the declared one).
  void bind_parameter(Work& w, GraphState& st, int k) {
    const Node& node = m_.graphs[w.g].nodes[k];
    auto it = w.bound.find(k);
    if (it == w.bound.end()) {
      problem(w.g, k, "body Parameter is not bound by the port map (the IR executor cannot run this body either)");
      return;
    }
    st.names[k][0] = it->second;
    ElemType e = param_elem(node);
    if (auto be = w.bound_elem.find(k); be != w.bound_elem.end() && is_concrete(be->second)) e = be->second;
    st.elems[k][0] = e;
  }

  // The ONNX names of layer k's inputs; false when one is not connected or its source could not be exported.
  bool input_names(const Work& w, const GraphState& st, int k, std::vector<std::string>& in) {
    const int g = w.g;
    const auto& nodes = m_.graphs[g].nodes;
    const int n = static_cast<int>(nodes.size());
    const Node& node = nodes[k];
    for (size_t i = 0; i < node.sources.size(); ++i) {
      const ValueRef& s = node.sources[i];
      if (!s.valid() || s.graph != g || s.node >= n || s.node == k) {
        problem(g, k, "input " + std::to_string(i) + " is not connected");
        return false;
      }
      if (s.output >= static_cast<int>(st.names[s.node].size()) || st.names[s.node][s.output].empty()) {
        // The source could not be exported (its problem is reported) or has no such output.
        if (s.output >= static_cast<int>(std::max<size_t>(nodes[s.node].outputs.size(), 1)))
          problem(g, k,
                  "input " + std::to_string(i) + " reads output " + std::to_string(s.output) + " of " +
                      nodes[s.node].display() + ", which has no such output");
        return false;
      }
      in.push_back(st.names[s.node][s.output]);
    }
    return true;
  }

  // The graph's outputs: pass-throughs, the Results' values, and a Loop body's condition as a boolean scalar.
  void add_outputs(Work& w, const GraphState& st) {
    const int g = w.g;
    onnx::GraphProto* gp = w.gp;
    const auto& nodes = m_.graphs[g].nodes;
    const int n = static_cast<int>(nodes.size());
    for (const auto& os : w.outs) {
      if (os.kind == OutSpec::PassThrough) {
        add(gp, "Identity", {os.pass}, {os.name}, os.name);
        gp->add_output()->set_name(os.name);
        continue;
      }
      if (os.result < 0 || os.result >= n || st.names[os.result].empty()) continue;  // never ran (a cycle): reported
      const std::string& v = st.names[os.result][0];
      if (v.empty()) continue;  // reported
      auto* out = gp->add_output();
      out->set_name(os.name);
      if (os.kind == OutSpec::CondScalar) {
        const std::string b = cast(gp, v, DT::Bool, os.name + "_bool");
        const std::string shp = const_i64(gp, {}, {0}, os.name + "_scalar_shape");
        add(gp, "Reshape", {b, shp}, {os.name}, os.name);
        set_type(*out, ElemType::Boolean, Shape::scalar());
        continue;
      }
      add(gp, "Identity", {v}, {os.name}, os.name);
      const ElemType e = st.elems[os.result][0];
      const Node& rn = nodes[os.result];
      if (is_concrete(e) && dt_of(e)) set_type(*out, e, rn.inputs.empty() ? std::nullopt : port_shape(rn.inputs[0]));
      else if (w.main)
        problem(g, os.result, "the element type of this output is not known (an ONNX graph output needs one)");
    }
  }

  void problem_graph(int g, const std::string& why) { r_.problems.push_back(m_.path_of(g) + ": " + why); }

  // ONNX paths as a tree of segments: nesting can be thousands deep, so full paths are built only when listed.
  struct PathNode {
    int parent;
    std::string seg;
  };
  std::vector<PathNode> paths_;
  int sub_path(int parent, const std::string& seg) {
    paths_.push_back({parent, seg});
    return static_cast<int>(paths_.size()) - 1;
  }
  std::string full_path(int id) const {
    std::vector<const std::string*> segs;
    for (int p = id; p >= 0; p = paths_[p].parent) segs.push_back(&paths_[p].seg);
    std::string s;
    for (auto it = segs.rbegin(); it != segs.rend(); ++it) s += (s.empty() ? "" : "/") + **it;
    return s;
  }
  // Ifs deeper than diff's walk reaches cannot be pinned; they are not listed.
  static constexpr int kMaxListedDepth = 64;
  void record_if(int g, int k, int path_id) {
    if (m_.graphs[g].depth >= kMaxListedDepth) {
      note("Ifs nested deeper than " + std::to_string(kMaxListedDepth) +
           " levels are exported but not listed (pins cannot name them)");
      return;
    }
    r_.if_paths[m_.path_of(g, k)] = full_path(path_id);
  }

  // ---------- ops ----------

  bool translate(Work& w, GraphState& st, int k, const std::vector<std::string>& in, std::vector<Work>& children,
                 std::set<std::string>& control_names) {
    const int g = w.g;
    onnx::GraphProto* gp = w.gp;
    const Node& node = m_.node(g, k);
    const std::string& op = node.op;
    auto& outs = st.names[k];
    auto& elems = st.elems[k];
    const std::string nm = node.display();
    auto same_elem = [&](size_t i) {
      if (!is_concrete(elems[0])) elems[0] = elem_in(st, node, i);
    };
    const auto& binary = exec::ir_binary_ops();
    static const std::set<std::string> boolean_out{"Equal",      "NotEqual",     "Less",       "Greater",
                                                   "LessEqual",  "GreaterEqual", "LogicalAnd", "LogicalOr",
                                                   "LogicalXor", "LogicalNot"};
    const auto& unary = exec::ir_unary_ops();
    if (boolean_out.count(op) && !is_concrete(elems[0])) elems[0] = ElemType::Boolean;
    auto need = [&](size_t count) {
      if (in.size() == count) return true;
      problem(g, k, "takes " + std::to_string(count) + " inputs, has " + std::to_string(in.size()));
      return false;
    };

    if (op == "Const" || op == "Constant") {
      onnx::TensorProto tp;
      if (!const_proto(g, k, tp)) return false;
      tp.set_name(outs[0]);
      if (!is_concrete(elems[0])) elems[0] = m_.ir->consts[consts_.at({g, k})].elem;
      if (w.main) {
        *gp->add_initializer() = std::move(tp);
      } else {
        auto* c = add(gp, "Constant", {}, {outs[0]}, nm);
        auto* a = c->add_attribute();
        a->set_name("value");
        a->set_type(onnx::AttributeProto::TENSOR);
        *a->mutable_t() = std::move(tp);
        a->mutable_t()->clear_name();
      }
      return true;
    }
    if (auto it = binary.find(op); it != binary.end()) {
      if (!need(2) || !broadcast_ok(g, k)) return false;
      add(gp, it->second, in, {outs[0]}, nm);
      same_elem(0);
      return true;
    }
    if (auto it = unary.find(op); it != unary.end()) {
      if (!need(1)) return false;
      add(gp, it->second, in, {outs[0]}, nm);
      same_elem(0);
      return true;
    }
    if (op == "NotEqual") {
      if (!need(2) || !broadcast_ok(g, k)) return false;
      const std::string eq = fresh(nm + "_equal");
      add(gp, "Equal", in, {eq}, eq);
      add(gp, "Not", {eq}, {outs[0]}, nm);
      return true;
    }
    if (op == "Divide") {
      if (!need(2) || !broadcast_ok(g, k)) return false;
      same_elem(0);
      const ElemType e = elem_in(st, node, 0);
      auto dt = dt_of(e);
      if (!dt) {
        problem(g, k, "the element type of input 0 is not known: integer Divide floors, float Divide does not");
        return false;
      }
      bool pydiv = true;
      if (!parse_bool(attr(node, "m_pythondiv", "true"), pydiv)) {
        problem(g, k, "attribute m_pythondiv=\"" + attr(node, "m_pythondiv", "") + "\" is not a boolean");
        return false;
      }
      if (exec::is_float(*dt) || !pydiv) {
        add(gp, "Div", in, {outs[0]}, nm);
        return true;
      }
      // Python (floor) division for integers: ONNX Div truncates; subtract 1 where the remainder is non-zero
      // and the signs differ.
      const std::string q = fresh(nm + "_trunc");
      add(gp, "Div", in, {q}, q);
      const std::string rem = fresh(nm + "_rem");
      set_i(add(gp, "Mod", in, {rem}, rem), "fmod", 1);
      const std::string zero = const_scalar(gp, *dt, 0, nm + "_zero");
      const std::string rz = fresh(nm + "_rem_is_zero");
      add(gp, "Equal", {rem, zero}, {rz}, rz);
      const std::string rnz = fresh(nm + "_rem_nonzero");
      add(gp, "Not", {rz}, {rnz}, rnz);
      const std::string an = fresh(nm + "_a_neg"), bn = fresh(nm + "_b_neg"), sd = fresh(nm + "_signs_differ");
      add(gp, "Less", {in[0], zero}, {an}, an);
      add(gp, "Less", {in[1], zero}, {bn}, bn);
      add(gp, "Xor", {an, bn}, {sd}, sd);
      const std::string fix = fresh(nm + "_fix");
      add(gp, "And", {rnz, sd}, {fix}, fix);
      const std::string fixn = cast(gp, fix, *dt, nm + "_fix_num");
      add(gp, "Sub", {q, fixn}, {outs[0]}, nm);
      return true;
    }
    if (op == "Select") {
      if (!need(3) || !broadcast_ok(g, k)) return false;
      std::string c = in[0];
      if (elem_in(st, node, 0) != ElemType::Boolean) c = cast(gp, c, DT::Bool, nm + "_cond");
      add(gp, "Where", {c, in[1], in[2]}, {outs[0]}, nm);
      if (!is_concrete(elems[0])) elems[0] = elem_in(st, node, 1);
      return true;
    }
    if (op == "Convert") {
      if (!need(1)) return false;
      static const std::map<std::string, DT> names{
          {"boolean", DT::Bool}, {"f16", DT::F16}, {"bf16", DT::BF16}, {"f32", DT::F32}, {"f64", DT::F64},
          {"i8", DT::I8},        {"i16", DT::I16}, {"i32", DT::I32},   {"i64", DT::I64}, {"u8", DT::U8},
          {"u16", DT::U16},      {"u32", DT::U32}, {"u64", DT::U64}};
      const std::string to = attr(node, "destination_type", "");
      auto it = names.find(to);
      if (it == names.end()) {
        auto e = parse_ov_elem_type(to);
        problem(g, k, "Convert to '" + to + "': " + (e ? no_onnx_type(*e) : std::string("not an element type")));
        return false;
      }
      set_i(add(gp, "Cast", in, {outs[0]}, nm), "to", static_cast<int>(it->second));
      for (const auto& [ename, edt] : names)
        if (ename == to) elems[0] = *parse_ov_elem_type(ename);
      return true;
    }
    if (op == "Concat") {
      int64_t axis = 0;
      if (!parse_int64(attr(node, "axis", "0"), axis)) {
        problem(g, k, "attribute axis=\"" + attr(node, "axis", "") + "\" is not an integer");
        return false;
      }
      set_i(add(gp, "Concat", in, {outs[0]}, nm), "axis", axis);
      same_elem(0);
      return true;
    }
    if (op == "Reshape") {
      if (!need(2)) return false;
      bool special_zero = false;
      if (!parse_bool(attr(node, "special_zero", "false"), special_zero)) {
        problem(g, k, "attribute special_zero=\"" + attr(node, "special_zero", "") + "\" is not a boolean");
        return false;
      }
      if (!special_zero && o_.opset < 14) {
        if (auto v = const_ints(g, k, 1); !v || std::find(v->begin(), v->end(), 0) != v->end()) {
          problem(g, k,
                  "special_zero=false needs ONNX Reshape allowzero (opset 14 or later), the export targets opset " +
                      std::to_string(o_.opset));
          return false;
        }
      }
      const std::string shp = as_i64(gp, st, g, k, 1, in, true, nm + "_shape");
      auto* r = add(gp, "Reshape", {in[0], shp}, {outs[0]}, nm);
      if (o_.opset >= 14) set_i(r, "allowzero", special_zero ? 0 : 1);
      same_elem(0);
      return true;
    }
    if (op == "Squeeze" || op == "Unsqueeze") {
      if (in.empty() || in.size() > 2 || (op == "Unsqueeze" && in.size() != 2)) {
        problem(g, k,
                "takes " + std::string(op == "Squeeze" ? "1 or 2" : "2") + " inputs, has " + std::to_string(in.size()));
        return false;
      }
      if (in.size() == 1) add(gp, op, {in[0]}, {outs[0]}, nm);
      else add(gp, op, {in[0], as_i64(gp, st, g, k, 1, in, true, nm + "_axes")}, {outs[0]}, nm);
      same_elem(0);
      return true;
    }
    if (op == "ShapeOf") {
      if (!need(1)) return false;
      const std::string ot = attr(node, "output_type", "i64");
      if (ot != "i64" && ot != "i32") {
        problem(g, k, "output_type=\"" + ot + "\" is neither i32 nor i64");
        return false;
      }
      if (ot == "i64") {
        add(gp, "Shape", in, {outs[0]}, nm);
      } else {
        const std::string s = fresh(nm + "_i64");
        add(gp, "Shape", in, {s}, s);
        set_i(add(gp, "Cast", {s}, {outs[0]}, nm), "to", static_cast<int>(DT::I32));
      }
      elems[0] = ot == "i64" ? ElemType::I64 : ElemType::I32;
      return true;
    }
    if (op == "Gather") {
      if (in.size() < 2 || in.size() > 3) {
        problem(g, k, "takes 2 or 3 inputs, has " + std::to_string(in.size()));
        return false;
      }
      int64_t bd = 0;
      if (!parse_int64(attr(node, "batch_dims", "0"), bd) || bd != 0) {
        problem(g, k, "batch_dims=" + attr(node, "batch_dims", "0") + ": only batch_dims=0 has an exact ONNX Gather");
        return false;
      }
      int64_t axis = 0;
      if (in.size() == 3) {
        auto v = const_ints(g, k, 2);
        if (!v || v->size() != 1) {
          problem(g, k,
                  "the axis input is not a one-element integer Const (ONNX Gather takes the axis as an attribute)");
          return false;
        }
        axis = (*v)[0];
      }
      std::string idx = in[1];
      const ElemType ie = elem_in(st, node, 1);
      if (ie != ElemType::I64 && ie != ElemType::I32) idx = cast(gp, idx, DT::I64, nm + "_indices");
      set_i(add(gp, "Gather", {in[0], idx}, {outs[0]}, nm), "axis", axis);
      same_elem(0);
      return true;
    }
    if (op == "StridedSlice") return strided_slice(w, st, k, in);
    if (op == "MatMul") {
      if (!need(2)) return false;
      std::string ab[2] = {in[0], in[1]};
      for (int i = 0; i < 2; ++i) {
        const char* an = i == 0 ? "transpose_a" : "transpose_b";
        bool tr = false;
        if (!parse_bool(attr(node, an, "false"), tr)) {
          problem(g, k, std::string("attribute ") + an + "=\"" + attr(node, an, "") + "\" is not a boolean");
          return false;
        }
        if (!tr) continue;
        std::optional<Shape> s = i < static_cast<int>(node.inputs.size()) ? port_shape(node.inputs[i]) : std::nullopt;
        if (!s) {
          problem(g, k, std::string(an) + "=true with an input of unknown rank (the transposition needs the rank)");
          return false;
        }
        const int64_t r = static_cast<int64_t>(s->dims.size());
        if (r < 2) continue;
        std::vector<int64_t> perm(r);
        for (int64_t d = 0; d < r; ++d) perm[d] = d;
        std::swap(perm[r - 1], perm[r - 2]);
        const std::string t = fresh(nm + (i == 0 ? "_a_T" : "_b_T"));
        set_ints(add(gp, "Transpose", {ab[i]}, {t}, t), "perm", perm);
        ab[i] = t;
      }
      add(gp, "MatMul", {ab[0], ab[1]}, {outs[0]}, nm);
      same_elem(0);
      return true;
    }
    if (op == "ReduceSum" || op == "ReduceMean" || op == "ReduceMax" || op == "ReduceMin" || op == "ReduceProd") {
      if (!need(2)) return false;
      bool keep = false;
      if (!parse_bool(attr(node, "keep_dims", "false"), keep)) {
        problem(g, k, "attribute keep_dims=\"" + attr(node, "keep_dims", "") + "\" is not a boolean");
        return false;
      }
      same_elem(0);
      if (op == "ReduceSum" || o_.opset >= 18) {
        auto* r = add(gp, op, {in[0], as_i64(gp, st, g, k, 1, in, true, nm + "_axes")}, {outs[0]}, nm);
        set_i(r, "keepdims", keep ? 1 : 0);
        set_i(r, "noop_with_empty_axes", 1);
        return true;
      }
      auto v = const_ints(g, k, 1);
      if (!v) {
        problem(g, k,
                "the axes input is not an integer Const; ONNX " + op +
                    " takes axes as an input only from opset 18 (exporting opset " + std::to_string(o_.opset) + ")");
        return false;
      }
      if (v->empty()) {
        add(gp, "Identity", {in[0]}, {outs[0]}, nm);  // no axes: nothing reduced
        return true;
      }
      auto* r = add(gp, op, {in[0]}, {outs[0]}, nm);
      set_ints(r, "axes", *v);
      set_i(r, "keepdims", keep ? 1 : 0);
      return true;
    }
    if (op == "Softmax") {
      if (!need(1)) return false;
      int64_t axis = 1;
      if (!parse_int64(attr(node, "axis", "1"), axis)) {
        problem(g, k, "attribute axis=\"" + attr(node, "axis", "") + "\" is not an integer");
        return false;
      }
      set_i(add(gp, "Softmax", in, {outs[0]}, nm), "axis", axis);
      same_elem(0);
      return true;
    }
    if (op == "Transpose") {
      if (!need(2)) return false;
      auto perm = const_ints(g, k, 1);
      if (!perm) {
        problem(g, k, "the permutation is not an integer Const (ONNX Transpose takes it as an attribute)");
        return false;
      }
      auto* t = add(gp, "Transpose", {in[0]}, {outs[0]}, nm);
      if (!perm->empty()) set_ints(t, "perm", *perm);
      same_elem(0);
      return true;
    }
    if (op == "Broadcast") {
      if (in.size() != 2) {
        problem(g, k,
                "Broadcast with " + std::to_string(in.size()) + " inputs (only numpy/bidirectional with 2 export)");
        return false;
      }
      const std::string mode = attr(node, "mode", "numpy");
      if (mode != "numpy" && mode != "bidirectional") {
        problem(g, k, "mode=" + mode + " has no exact ONNX equivalent");
        return false;
      }
      if (mode == "numpy") {
        // OpenVINO's numpy mode gives exactly the target shape; ONNX Expand is bidirectional. Exact when the
        // input's static shape broadcasts into the target without growing it.
        auto target = const_ints(g, k, 1);
        auto xs = node.inputs.empty() ? std::nullopt : port_shape(node.inputs[0]);
        bool proven = false;
        if (target && xs && xs->is_static() && xs->dims.size() <= target->size()) {
          proven = true;
          const size_t off = target->size() - xs->dims.size();
          for (size_t d = 0; d < xs->dims.size(); ++d)
            if (xs->dims[d].lo != 1 && xs->dims[d].lo != (*target)[off + d]) proven = false;
        }
        if (!proven)
          note(
              "Broadcast (numpy) is exported as ONNX Expand, which also accepts an input larger than the target shape "
              "(OpenVINO rejects it); results agree wherever OpenVINO accepts the input");
      }
      add(gp, "Expand", {in[0], as_i64(gp, st, g, k, 1, in, true, nm + "_shape")}, {outs[0]}, nm);
      same_elem(0);
      return true;
    }
    if (op == "Round") {
      if (!need(1)) return false;
      const std::string mode = attr(node, "mode", "half_to_even");
      if (mode != "half_to_even") {
        problem(g, k, "mode=" + mode + ": ONNX Round rounds halves to even only");
        return false;
      }
      add(gp, "Round", in, {outs[0]}, nm);
      same_elem(0);
      note(
          "Round (half_to_even) is exported as ONNX Round; condlint's IR executor does not run Round, so this op is "
          "not checked against it");
      return true;
    }
    if (op == "Convolution") {
      if (!need(2)) return false;
      auto ints = [&](const char* a, std::vector<int64_t>& v) {
        auto p = parse_int_list(attr(node, a, ""));
        if (!p) {
          problem(g, k, std::string("attribute ") + a + "=\"" + attr(node, a, "") + "\" is not a list of integers");
          return false;
        }
        v = *p;
        return true;
      };
      std::vector<int64_t> strides, dil, pb, pe;
      if (!ints("strides", strides) || !ints("dilations", dil) || !ints("pads_begin", pb) || !ints("pads_end", pe))
        return false;
      const std::string ap = attr(node, "auto_pad", "explicit");
      auto* c = add(gp, "Conv", in, {outs[0]}, nm);
      if (!strides.empty()) set_ints(c, "strides", strides);
      if (!dil.empty()) set_ints(c, "dilations", dil);
      if (ap == "explicit" || ap.empty()) {
        if (pb.size() != pe.size()) {
          problem(g, k, "pads_begin and pads_end differ in length");
          return false;
        }
        std::vector<int64_t> pads = pb;
        pads.insert(pads.end(), pe.begin(), pe.end());
        if (!pads.empty()) set_ints(c, "pads", pads);
      } else if (ap == "valid") {
        set_s(c, "auto_pad", "VALID");
      } else if (ap == "same_upper") {
        set_s(c, "auto_pad", "SAME_UPPER");
      } else if (ap == "same_lower") {
        set_s(c, "auto_pad", "SAME_LOWER");
      } else {
        problem(g, k, "auto_pad=" + ap + " is not an OpenVINO padding mode");
        return false;
      }
      same_elem(0);
      note(
          "Convolution is exported as ONNX Conv; condlint's IR executor does not run Convolution, so this op is "
          "not checked against it");
      return true;
    }
    if (op == "If") return translate_if(w, st, k, in, children, control_names);
    if (op == "Loop") return translate_loop(w, st, k, in, children, control_names);
    if (op == "TensorIterator")
      problem(
          g, k,
          "TensorIterator is not exported (condlint's IR executor does not run it, so an export could not be checked)");
    else
      problem(g, k,
              "op " + op + (node.version.empty() ? "" : " (" + node.version.str() + ")") +
                  " has no ONNX export (condlint's IR executor does not run it either)");
    return false;
  }

  bool strided_slice(Work& w, GraphState& st, int k, const std::vector<std::string>& in) {
    const int g = w.g;
    onnx::GraphProto* gp = w.gp;
    const Node& node = m_.node(g, k);
    const std::string nm = node.display();
    if (in.size() < 3 || in.size() > 4) {
      problem(g, k, "takes 3 or 4 inputs, has " + std::to_string(in.size()));
      return false;
    }
    std::vector<int64_t> masks[5];
    const char* mask_names[5] = {"begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask"};
    for (int i = 0; i < 5; ++i) {
      auto v = parse_int_list(attr(node, mask_names[i], ""));
      if (!v) {
        problem(g, k, std::string("attribute ") + mask_names[i] + " is not a list of integers");
        return false;
      }
      masks[i] = *v;
    }
    auto bit = [](const std::vector<int64_t>& m, size_t j) { return j < m.size() && m[j] != 0; };
    auto begin = const_ints(g, k, 1), end = const_ints(g, k, 2);
    std::optional<std::vector<int64_t>> stride;
    if (in.size() > 3) stride = const_ints(g, k, 3);
    else if (begin) stride = std::vector<int64_t>(begin->size(), 1);
    if (!begin || !end || !stride) {
      // Runtime begin/end/stride: exact only when no mask bit is set (ONNX Slice then does the same).
      bool any = false;
      for (const auto& m : masks)
        for (int64_t x : m) any |= x != 0;
      if (any) {
        problem(g, k, "begin/end/stride are not Consts and a mask is set (only the plain form exports as ONNX Slice)");
        return false;
      }
      std::vector<std::string> ins{in[0], as_i64(gp, st, g, k, 1, in, true, nm + "_begin"),
                                   as_i64(gp, st, g, k, 2, in, true, nm + "_end"), ""};
      if (in.size() > 3) ins.push_back(as_i64(gp, st, g, k, 3, in, true, nm + "_stride"));
      else ins.pop_back();
      add(gp, "Slice", ins, {st.names[k][0]}, nm);
      if (!is_concrete(st.elems[k][0])) st.elems[k][0] = elem_in(st, node, 0);
      return true;
    }
    for (size_t j = 0; j < begin->size(); ++j)
      if (bit(masks[2], j) || bit(masks[4], j)) {
        problem(g, k, "new_axis_mask/ellipsis_mask are not exported (the IR executor does not run them either)");
        return false;
      }
    for (size_t j = begin->size(); j < masks[3].size(); ++j)
      if (masks[3][j] != 0) {
        problem(g, k,
                "shrink_axis_mask sets bit " + std::to_string(j) + ", beyond the " + std::to_string(begin->size()) +
                    " sliced axes (not exported)");
        return false;
      }
    if (end->size() != begin->size() || stride->size() != begin->size()) {
      problem(g, k, "begin/end/stride lengths differ");
      return false;
    }
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
    std::vector<int64_t> starts, ends, axes, steps, shrink;
    for (size_t j = 0; j < begin->size(); ++j) {
      const int64_t s = (*stride)[j];
      if (s == 0) {
        problem(g, k, "stride is 0");
        return false;
      }
      int64_t b = (*begin)[j], e = (*end)[j];
      if (bit(masks[3], j)) {
        if (s < 0) {
          problem(g, k, "shrink axis with a negative stride");
          return false;
        }
        e = b == -1 ? kMax : b + 1;
        shrink.push_back(static_cast<int64_t>(j));
      } else {
        if (bit(masks[0], j)) b = s > 0 ? 0 : kMax;
        if (bit(masks[1], j)) e = s > 0 ? kMax : kMin;
      }
      starts.push_back(b);
      ends.push_back(e);
      axes.push_back(static_cast<int64_t>(j));
      steps.push_back(s);
    }
    const int64_t len = static_cast<int64_t>(starts.size());
    std::vector<std::string> ins{in[0], const_i64(gp, starts, {len}, nm + "_starts"),
                                 const_i64(gp, ends, {len}, nm + "_ends"), const_i64(gp, axes, {len}, nm + "_axes"),
                                 const_i64(gp, steps, {len}, nm + "_steps")};
    if (shrink.empty()) {
      add(gp, "Slice", ins, {st.names[k][0]}, nm);
    } else {
      const std::string sl = fresh(nm + "_slice");
      add(gp, "Slice", ins, {sl}, sl);
      add(gp, "Squeeze", {sl, const_i64(gp, shrink, {static_cast<int64_t>(shrink.size())}, nm + "_shrink")},
          {st.names[k][0]}, nm);
    }
    if (!is_concrete(st.elems[k][0])) st.elems[k][0] = elem_in(st, node, 0);
    return true;
  }

  std::string control_name(const Node& node, int k, std::set<std::string>& used) {
    std::string name = node.display();
    if (!used.insert(name).second) {
      name += "#" + std::to_string(k);
      used.insert(name);
    }
    return name;
  }

  bool translate_if(Work& w, GraphState& st, int k, const std::vector<std::string>& in, std::vector<Work>& children,
                    std::set<std::string>& control_names) {
    const int g = w.g;
    const Node& node = m_.node(g, k);
    auto it = ifs_.find({g, k});
    if (it == ifs_.end() || in.empty()) {
      problem(g, k, "If without bodies or condition");
      return false;
    }
    const IrIf& info = m_.ir->ifs[it->second];
    const char* roles[2] = {"then", "else"};
    struct Branch {
      std::map<int, std::string> bound;
      std::map<int, ElemType> bound_elem;
      std::vector<int> results;  // by If output
    } br[2];
    bool ok = true;
    const size_t n_out = node.outputs.size();
    if (n_out == 0) {
      problem(g, k, "If without outputs (an ONNX If has at least one)");
      return false;
    }
    for (int b = 0; b < 2; ++b) {
      const int body = info.body_graph[b];
      if (body < 0) {
        problem(g, k, std::string("If has no ") + roles[b] + "_body");
        ok = false;
        continue;
      }
      const auto& bnodes = m_.graphs[body].nodes;
      std::unordered_map<std::string, int> by_id;
      for (int i = 0; i < static_cast<int>(bnodes.size()); ++i) by_id.emplace(bnodes[i].id, i);
      std::map<int64_t, int64_t> outs;  // external port id -> internal layer id (first wins), as the executor
      for (const auto& e : info.port_map[b]) {
        if (!e.has_external || !e.has_internal) continue;
        if (!e.is_input) {
          outs.emplace(e.external_port_id, e.internal_layer_id);
          continue;
        }
        if (e.external_port_id < 0 || e.external_port_id >= static_cast<int64_t>(in.size())) {
          problem(g, k,
                  std::string(roles[b]) + "_port_map input external_port_id " + std::to_string(e.external_port_id) +
                      " is not an If input");
          ok = false;
          continue;
        }
        auto p = by_id.find(std::to_string(e.internal_layer_id));
        if (p == by_id.end() || bnodes[p->second].op != "Parameter") {
          problem(g, k,
                  std::string(roles[b]) + "_port_map input internal_layer_id " + std::to_string(e.internal_layer_id) +
                      " is not a Parameter");
          ok = false;
          continue;
        }
        br[b].bound.emplace(p->second, in[e.external_port_id]);
        br[b].bound_elem.emplace(p->second, elem_in(st, node, static_cast<size_t>(e.external_port_id)));
      }
      for (const auto& [ext, internal] : outs) {
        if (ext < 0) continue;
        auto p = by_id.find(std::to_string(internal));
        if (p == by_id.end() || bnodes[p->second].op != "Result") {
          problem(g, k,
                  std::string(roles[b]) + "_port_map output internal_layer_id " + std::to_string(internal) +
                      " is not a Result");
          ok = false;
          break;
        }
        if (br[b].results.size() < n_out) br[b].results.push_back(p->second);
      }
      if (br[b].results.size() < n_out) {
        problem(g, k,
                std::string(roles[b]) + " branch maps " + std::to_string(br[b].results.size()) +
                    " outputs, the If declares " + std::to_string(n_out));
        ok = false;
      }
    }
    if (!ok) return false;
    const std::string name = control_name(node, k, control_names);
    const int npath = sub_path(w.path, name);
    record_if(g, k, npath);
    std::string cond = in[0];
    if (elem_in(st, node, 0) != ElemType::Boolean) cond = cast(w.gp, cond, DT::Bool, node.display() + "_cond");
    // ONNX If wants a one-element condition; the IR executor accepts any one-element tensor too.
    auto* n = add(w.gp, "If", {cond}, st.names[k], name);
    for (int b = 0; b < 2; ++b) {
      auto* a = n->add_attribute();
      a->set_name(b == 0 ? "then_branch" : "else_branch");
      a->set_type(onnx::AttributeProto::GRAPH);
      auto* bg = a->mutable_g();
      bg->set_name(name + "_" + roles[b]);
      Work cw;
      cw.g = info.body_graph[b];
      cw.gp = bg;
      cw.path = sub_path(npath, roles[b]);
      cw.bound = std::move(br[b].bound);
      cw.bound_elem = std::move(br[b].bound_elem);
      for (size_t o = 0; o < n_out; ++o)
        cw.outs.push_back(
            {br[b].results[o], fresh(name + "_" + roles[b] + "_out" + std::to_string(o)), OutSpec::Plain, ""});
      children.push_back(std::move(cw));
    }
    return true;
  }

  bool translate_loop(Work& w, GraphState& st, int k, const std::vector<std::string>& in, std::vector<Work>& children,
                      std::set<std::string>& control_names) {
    const int g = w.g;
    onnx::GraphProto* gp = w.gp;
    const Node& node = m_.node(g, k);
    const std::string nm = node.display();
    const IrLoop* lm = m_.ir->loop_at(g, k);
    int body = -1;
    for (const auto& [role, gi] : node.bodies)
      if (role == "body") body = gi;
    if (!lm || body < 0) {
      problem(g, k, "Loop without <body> or <port_map>");
      return false;
    }
    if (in.size() < 2) {
      problem(g, k, "Loop needs a trip count and an execution condition input");
      return false;
    }
    const auto& bnodes = m_.graphs[body].nodes;
    std::unordered_map<int64_t, int> by_id;
    for (int i = 0; i < static_cast<int>(bnodes.size()); ++i) {
      int64_t id = 0;
      if (parse_int64(bnodes[i].id, id)) by_id.emplace(id, i);
    }
    bool ok = true;
    auto layer = [&](int64_t id, const char* op) {
      auto it = by_id.find(id);
      if (it == by_id.end() || bnodes[it->second].op != op) {
        problem(g, k, "Loop port_map names layer " + std::to_string(id) + ", which is not a " + op + " of the body");
        ok = false;
        return -1;
      }
      return it->second;
    };
    std::map<int, size_t> initial;  // body Parameter -> Loop input index
    for (const auto& e : lm->ins) {
      if (e.sliced) {
        problem(g, k, "Loop with a sliced input (axis) is not exported (the IR executor does not run it either)");
        return false;
      }
      if (e.ext < 0 || e.ext >= static_cast<int64_t>(in.size())) {
        problem(g, k, "Loop port_map input " + std::to_string(e.ext) + " is not a Loop input");
        return false;
      }
      const int p = layer(e.internal, "Parameter");
      if (p >= 0) initial[p] = static_cast<size_t>(e.ext);
    }
    const int iter_node = lm->iter_layer >= 0 ? layer(lm->iter_layer, "Parameter") : -1;
    const int cond_node = lm->cond_layer >= 0 ? layer(lm->cond_layer, "Result") : -1;
    std::map<int, int> back_to;  // Parameter -> Result (last wins, as the executor assigns in order)
    for (const auto& [from, to] : lm->back) {
      const int r = layer(from, "Result"), p = layer(to, "Parameter");
      if (r >= 0 && p >= 0) back_to[p] = r;
    }
    if (!ok) return false;

    const std::string name = control_name(node, k, control_names);
    const int npath = sub_path(w.path, name);
    // Trip count: int64 scalar; a negative IR trip count means "no limit".
    std::string trip = in[0];
    if (elem_in(st, node, 0) != ElemType::I64) trip = cast(gp, trip, DT::I64, nm + "_trip_i64");
    {
      const std::string shp = const_i64(gp, {}, {0}, nm + "_scalar_shape");
      const std::string ts = fresh(nm + "_trip_scalar");
      add(gp, "Reshape", {trip, shp}, {ts}, ts);
      const std::string zero = const_i64(gp, {0}, {}, nm + "_zero");
      const std::string big = const_i64(gp, {std::numeric_limits<int64_t>::max()}, {}, nm + "_no_limit");
      const std::string neg = fresh(nm + "_trip_negative");
      add(gp, "Less", {ts, zero}, {neg}, neg);
      trip = fresh(nm + "_trip");
      add(gp, "Where", {neg, big, ts}, {trip}, trip);
    }
    std::string cond = in[1];
    if (elem_in(st, node, 1) != ElemType::Boolean) cond = cast(gp, cond, DT::Bool, nm + "_cond_bool");
    {
      const std::string shp = const_i64(gp, {}, {0}, nm + "_cond_shape");
      const std::string cs = fresh(nm + "_cond");
      add(gp, "Reshape", {cond, shp}, {cs}, cs);
      cond = cs;
    }
    Work cw;
    cw.g = body;
    cw.path = sub_path(npath, "body");
    std::vector<std::string> loop_ins{trip, cond};
    // Body inputs: iteration number, condition, then one per carried Parameter.
    auto* lnode = add(gp, "Loop", {}, {}, name);
    auto* a = lnode->add_attribute();
    a->set_name("body");
    a->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* bg = a->mutable_g();
    bg->set_name(name + "_body");
    cw.gp = bg;
    const std::string iter_in = fresh(nm + "_iter"), cond_in = fresh(nm + "_cond_in");
    {
      auto* vi = bg->add_input();
      vi->set_name(iter_in);
      set_type(*vi, ElemType::I64, Shape::scalar());
      vi = bg->add_input();
      vi->set_name(cond_in);
      set_type(*vi, ElemType::Boolean, Shape::scalar());
    }
    if (iter_node >= 0) {
      const ElemType ie = bnodes[iter_node].outputs.empty() ? ElemType::I64 : bnodes[iter_node].outputs[0].type().elem;
      auto dt = dt_of(ie);
      if (!dt || ie == ElemType::I64) {
        cw.bound[iter_node] = iter_in;
        cw.bound_elem[iter_node] = ElemType::I64;
      } else {
        cw.bound[iter_node] = cast(bg, iter_in, *dt, nm + "_iter_cast");
        cw.bound_elem[iter_node] = ie;
      }
    }
    // Body outputs: condition first.
    if (cond_node >= 0) cw.outs.push_back({cond_node, fresh(nm + "_cond_out"), OutSpec::CondScalar, ""});
    else cw.outs.push_back({-1, fresh(nm + "_cond_out"), OutSpec::PassThrough, cond_in});
    std::vector<std::pair<int, int>> carried;  // (Parameter, Result)
    for (const auto& [p, r] : back_to) {
      auto ini = initial.find(p);
      if (ini == initial.end()) {
        problem(g, k,
                "body Parameter '" + bnodes[p].display() + "' has a back edge but no initial value in the port map");
        return false;
      }
      const std::string vin = fresh(bnodes[p].display() + "_in");
      auto* vi = bg->add_input();
      vi->set_name(vin);
      const ElemType e = elem_in(st, node, ini->second);
      if (is_concrete(e) && dt_of(e)) set_type(*vi, e, std::nullopt);
      cw.bound[p] = vin;
      cw.bound_elem[p] = e;
      loop_ins.push_back(in[ini->second]);
      cw.outs.push_back({r, fresh(bnodes[p].display() + "_next"), OutSpec::Plain, ""});
      carried.emplace_back(p, r);
    }
    for (const auto& [p, ext] : initial)
      if (!cw.bound.count(p)) {  // loop-invariant: read the outer value directly
        cw.bound[p] = in[ext];
        cw.bound_elem[p] = elem_in(st, node, ext);
      }
    // Loop outputs: carried finals, then scan outputs.
    std::vector<std::string> lout;
    for (const auto& [p, r] : carried) lout.push_back(fresh(nm + "_final_" + bnodes[p].display()));
    struct Post {
      size_t scan;
      int pos;
      std::optional<int64_t> axis;
      int result;
    };
    std::vector<Post> posts;
    std::vector<bool> mapped(node.outputs.size(), false);
    for (const auto& o : lm->outs) {
      int pos = -1;
      for (size_t j = 0; j < node.outputs.size(); ++j)
        if (node.outputs[j].id == std::to_string(o.ext)) pos = static_cast<int>(j);
      if (pos < 0 && o.ext >= 0 && o.ext < static_cast<int64_t>(node.outputs.size())) pos = static_cast<int>(o.ext);
      if (pos < 0) {
        problem(g, k, "Loop port_map output " + std::to_string(o.ext) + " is not a Loop output");
        return false;
      }
      const int r = layer(o.internal, "Result");
      if (r < 0) return false;
      mapped[pos] = true;
      if (!o.axis) {
        // The last value: a carried variable when the Result feeds a back edge (zero iterations give the initial
        // value, as the executor does), else the last element of a scan output.
        int found = -1;
        for (size_t c = 0; c < carried.size(); ++c)
          if (carried[c].second == r) found = static_cast<int>(c);
        if (found >= 0) {
          if (!st.names[k][pos].empty())
            add(gp, "Identity", {lout[found]}, {st.names[k][pos]}, nm + "_out" + std::to_string(pos));
          continue;
        }
      }
      posts.push_back({0, pos, o.axis, r});
    }
    for (size_t j = 0; j < mapped.size(); ++j)
      if (!mapped[j]) {
        problem(g, k, "Loop output " + std::to_string(j) + " is not mapped by the port map");
        return false;
      }
    for (auto& p : posts) {
      p.scan = lout.size();
      lout.push_back(fresh(nm + "_scan" + std::to_string(p.pos)));
      cw.outs.push_back({p.result, fresh(nm + "_scan_out" + std::to_string(p.pos)), OutSpec::Plain, ""});
    }
    for (const auto& i : loop_ins) lnode->add_input(i);
    for (const auto& o : lout) lnode->add_output(o);
    // Scan outputs after the Loop: the last element, or the IR concatenation along `axis`.
    for (const auto& p : posts) {
      const std::string& s = lout[p.scan];
      const std::string& out = st.names[k][p.pos];
      if (!p.axis) {
        // Gather of index -1 fails on zero iterations, as the executor does ("no initial value").
        set_i(add(gp, "Gather", {s, const_i64(gp, {-1}, {}, nm + "_last")}, {out}, nm + "_last_value"), "axis", 0);
        continue;
      }
      const Node& rn = bnodes[p.result];
      auto rs = rn.inputs.empty() ? std::nullopt : port_shape(rn.inputs[0]);
      if (!rs) {
        problem(g, k,
                "Loop output " + std::to_string(p.pos) + " concatenates along axis " + std::to_string(*p.axis) +
                    " values of unknown rank (Result '" + rn.display() + "')");
        return false;
      }
      const int64_t r = static_cast<int64_t>(rs->dims.size());
      int64_t ax = *p.axis < 0 ? *p.axis + r : *p.axis;
      if (ax < 0 || ax >= r) {
        problem(g, k, "Loop output axis " + std::to_string(*p.axis) + " is out of range for rank " + std::to_string(r));
        return false;
      }
      // stacked [N, d0..] -> [d0..d(ax-1), N, d(ax)..] -> merge N with d(ax).
      std::vector<int64_t> perm;
      for (int64_t d = 1; d <= ax; ++d) perm.push_back(d);
      perm.push_back(0);
      for (int64_t d = ax + 1; d <= r; ++d) perm.push_back(d);
      const std::string t = fresh(nm + "_scan_T");
      set_ints(add(gp, "Transpose", {s}, {t}, t), "perm", perm);
      const std::string shp = fresh(nm + "_scan_shape");
      add(gp, "Shape", {t}, {shp}, shp);
      auto slice = [&](int64_t b, int64_t e, const std::string& hint) {
        const std::string o = fresh(hint);
        add(gp, "Slice", {shp, const_i64(gp, {b}, {1}, hint + "_b"), const_i64(gp, {e}, {1}, hint + "_e")}, {o}, o);
        return o;
      };
      const std::string head = slice(0, ax, nm + "_head"), nd = slice(ax, ax + 1, nm + "_n"),
                        dd = slice(ax + 1, ax + 2, nm + "_d"), tail = slice(ax + 2, r + 1, nm + "_tail");
      const std::string prod = fresh(nm + "_merged");
      add(gp, "Mul", {nd, dd}, {prod}, prod);
      const std::string ns = fresh(nm + "_concat_shape");
      set_i(add(gp, "Concat", {head, prod, tail}, {ns}, ns), "axis", 0);
      add(gp, "Reshape", {t, ns}, {out}, nm + "_concat");
      note(
          "Loop concatenated outputs are exported as ONNX scan outputs reshaped; with zero iterations ONNX gives an "
          "empty tensor where OpenVINO fails");
    }
    children.push_back(std::move(cw));
    return true;
  }

  const Model& m_;
  const ExportOptions& o_;
  ExportResult& r_;
  std::map<std::pair<int, int>, size_t> consts_, ifs_;
  std::unordered_set<std::string> used_;
  int64_t counter_ = 0;
};

}  // namespace

ExportResult export_ir(const Model& loaded, const fs::path& xml, const ExportOptions& o) {
  ExportResult r;
  if (o.opset < 13 || o.opset > 21) {
    r.problems.push_back("opset " + std::to_string(o.opset) + ": the IR export writes opsets 13 to 21");
    return r;
  }
  const Model* model = &loaded;
  if (!model->ir) {
    r.error = xml.string() + ": not an OpenVINO IR";
    r.problems.push_back(r.error);
    return r;
  }
  for (const auto& p : model->ir->problems)
    if (p.kind != IrProblem::Kind::BadAttribute) {
      r.error = xml.string() + ": " + p.message;
      r.problems.push_back(r.error);
      return r;
    }
  if (model->graphs.empty()) {
    r.error = xml.string() + ": no graph";
    r.problems.push_back(r.error);
    return r;
  }
  try {
    Exporter(*model, o, r).run();
  } catch (const std::exception& e) {
    r.problems.push_back(std::string("internal error: ") + e.what());
  }
  if (!r.problems.empty()) return r;
  if (!o.pins.empty()) {
    std::map<std::string, bool> pins;
    for (const auto& [path, v] : o.pins) {
      auto it = r.if_paths.find(path);
      if (it == r.if_paths.end()) {
        r.problems.push_back("pin '" + path + "' names no If of the model (its Ifs: " + [&] {
          std::string s;
          for (const auto& [p, _] : r.if_paths) s += (s.empty() ? "" : ", ") + p;
          return s.empty() ? std::string("none") : s;
        }() + ")");
        continue;
      }
      pins[it->second] = v;
    }
    if (!r.problems.empty()) return r;
    onnx::ModelProto pinned;
    if (auto e = onnx_graph::pin_model(r.model, pins, pinned); !e.empty()) {
      r.problems.push_back("cannot pin: " + e);
      return r;
    }
    r.model = std::move(pinned);
    r.notes.push_back("pinned: " + onnx_graph::pins_label(o.pins));
  }
  return r;
}

}  // namespace condlint::xport
