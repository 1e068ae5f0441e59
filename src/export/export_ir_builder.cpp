// The IR exporter's building blocks: names, problems, ONNX nodes and constants, the data of Consts.
#include "export/export_ir_builder.hpp"

#include <algorithm>

#include "exec/onnx_io.hpp"

namespace condlint::xport::ir_export {

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

// ---------- names, problems, helpers ----------
std::string IrExporter::fresh(const std::string& hint) {
  std::string base = hint.empty() ? "v" : hint;
  if (used_.insert(base).second) return base;
  for (;;) {
    std::string s = base + "_" + std::to_string(++counter_);
    if (used_.insert(s).second) return s;
  }
}

void IrExporter::problem(int g, int k, const std::string& why) {
  const Node& n = m_.node(g, k);
  r_.problems.push_back(m_.path_of(g, k) + " (" + n.op + "): " + why);
}

void IrExporter::note(const std::string& s) {
  if (std::find(r_.notes.begin(), r_.notes.end(), s) == r_.notes.end()) r_.notes.push_back(s);
}

ElemType IrExporter::param_elem(const Node& p) const {
  if (const std::string* v = p.attrs.find("element_type"))
    if (auto e = parse_ov_elem_type(*v)) return *e;
  if (!p.outputs.empty() && p.outputs[0].type().kind == TypeDesc::Kind::Tensor) return p.outputs[0].type().elem;
  return ElemType::Unknown;
}

std::optional<Shape> IrExporter::param_shape(const Node& p) const {
  if (const std::string* v = p.attrs.find("shape"))
    if (auto s = parse_ov_shape(*v)) return s;
  if (!p.outputs.empty()) return port_shape(p.outputs[0]);
  return std::nullopt;
}

std::string IrExporter::attr(const Node& n, const std::string& name, const std::string& def) const {
  const std::string* v = n.attrs.find(name);
  return v ? *v : def;
}

onnx::NodeProto* IrExporter::add(onnx::GraphProto* gp, const std::string& op, const std::vector<std::string>& ins,
                                 const std::vector<std::string>& outs, const std::string& name) {
  auto* n = gp->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (const auto& i : ins) n->add_input(i);
  for (const auto& o : outs) n->add_output(o);
  return n;
}

void IrExporter::set_i(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void IrExporter::set_ints(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

void IrExporter::set_s(onnx::NodeProto* n, const std::string& name, const std::string& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

// A Constant node holding an int64 tensor (dims empty = scalar).
std::string IrExporter::const_i64(onnx::GraphProto* gp, const std::vector<int64_t>& v, const std::vector<int64_t>& dims,
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

std::string IrExporter::const_scalar(onnx::GraphProto* gp, DT dt, int64_t v, const std::string& hint) {
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

std::string IrExporter::cast(onnx::GraphProto* gp, const std::string& x, DT to, const std::string& hint) {
  const std::string out = fresh(hint);
  set_i(add(gp, "Cast", {x}, {out}, out), "to", static_cast<int>(to));
  return out;
}

// ---------- Const data ----------
// Reads a Const's bytes from the .bin; "" and a problem on failure.
bool IrExporter::const_proto(int g, int k, onnx::TensorProto& tp) {
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
  if (!m_.ir->weights_size) return problem(g, k, "the weights file " + m_.ir->weights_path + " does not exist"), false;
  if (*c.offset < 0 || static_cast<uint64_t>(*c.offset) > *m_.ir->weights_size ||
      bytes > *m_.ir->weights_size - static_cast<uint64_t>(*c.offset))
    return problem(g, k,
                   "Const bytes [" + std::to_string(*c.offset) + ", +" + std::to_string(bytes) +
                       ") lie outside the weights file"),
           false;
  const auto found = m_.ir->weight_bytes(*c.offset, bytes);
  if (!found) return problem(g, k, "cannot read the weights file " + m_.ir->weights_path), false;
  std::string buf(*found);
  if (*dt == DT::Bool)
    for (char& ch : buf) ch = ch != 0 ? 1 : 0;
  tp.set_data_type(static_cast<int>(*dt));
  for (const auto& d : c.shape->dims) tp.add_dims(d.lo);
  tp.set_raw_data(std::move(buf));
  return true;
}

// The integer values of a Const feeding input `i` of node k (small tensors only), or nullopt.
std::optional<std::vector<int64_t>> IrExporter::const_ints(int g, int k, size_t i) {
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

ElemType IrExporter::elem_in(const GraphState& st, const Node& n, size_t i) const {
  if (i >= n.sources.size() || !n.sources[i].valid()) return ElemType::Unknown;
  const ValueRef& s = n.sources[i];
  if (s.node >= static_cast<int>(st.elems.size()) || s.output >= static_cast<int>(st.elems[s.node].size()))
    return ElemType::Unknown;
  return st.elems[s.node][s.output];
}

// A value as int64 (Cast unless known i64) and, when `flat`, as a 1-D tensor.
std::string IrExporter::as_i64(onnx::GraphProto* gp, GraphState& st, int g, int k, size_t i,
                               const std::vector<std::string>& in, bool flat, const std::string& hint) {
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

bool IrExporter::broadcast_ok(int g, int k) {
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

void IrExporter::problem_graph(int g, const std::string& why) { r_.problems.push_back(m_.path_of(g) + ": " + why); }

std::string IrExporter::full_path(int id) const {
  std::vector<const std::string*> segs;
  for (int p = id; p >= 0; p = paths_[p].parent) segs.push_back(&paths_[p].seg);
  std::string s;
  for (auto it = segs.rbegin(); it != segs.rend(); ++it) s += (s.empty() ? "" : "/") + **it;
  return s;
}

std::string IrExporter::control_name(const Node& node, int k, std::set<std::string>& used) {
  std::string name = node.display();
  if (!used.insert(name).second) {
    name += "#" + std::to_string(k);
    used.insert(name);
  }
  return name;
}

bool IrExporter::OpCall::need(size_t count, bool or_one_more) {
  if (in.size() == count || (or_one_more && in.size() == count + 1)) return true;
  problem("takes " + std::to_string(count) + (or_one_more ? " or " + std::to_string(count + 1) : std::string()) +
          " inputs, has " + std::to_string(in.size()));
  return false;
}

void IrExporter::OpCall::same_elem(size_t i) {
  if (!is_concrete(elems[0])) elems[0] = x.elem_in(st, node, i);
}

bool IrExporter::OpCall::bool_attr(const char* name, const char* def, bool& v) {
  if (parse_bool(attr(name, def), v)) return true;
  problem(std::string("attribute ") + name + "=\"" + attr(name, "") + "\" is not a boolean");
  return false;
}

bool IrExporter::OpCall::int_attr(const char* name, const char* def, int64_t& v) {
  if (parse_int64(attr(name, def), v)) return true;
  problem(std::string("attribute ") + name + "=\"" + attr(name, "") + "\" is not an integer");
  return false;
}

bool IrExporter::OpCall::ints_attr(const char* name, std::vector<int64_t>& v) {
  auto p = parse_int_list(attr(name, ""));
  if (!p) {
    problem(std::string("attribute ") + name + "=\"" + attr(name, "") + "\" is not a list of integers");
    return false;
  }
  v = *p;
  return true;
}

}  // namespace condlint::xport::ir_export
