// The NNAPI exporter's building blocks: names, ONNX nodes, constants, operand bytes, the executor's conversions and
// the operands an operation reads and writes.
#include "export/export_nnapi_builder.hpp"

#include <cstring>

#include "exec/onnx_io.hpp"
#include "model/node_path.hpp"

namespace condlint::xport::nnapi_export {

void Exporter::problem(const std::string& s) {
  if (r.problems.size() < kMaxProblems) r.problems.push_back(s);
  else ++dropped_problems;
}

void Exporter::note(const std::string& s) {
  if (note_set.insert(s).second) r.notes.push_back(s);
}

std::string Exporter::fresh(std::string base) {
  if (base.empty()) base = "v";
  auto [it, inserted] = used.emplace(base, 1);
  if (inserted) return base;
  for (;;) {
    std::string c = base + "_" + std::to_string(it->second++);
    if (used.emplace(c, 1).second) return c;
  }
}

onnx::NodeProto* Exporter::node(Frame& f, const std::string& type, const std::vector<std::string>& ins,
                                const std::string& out, const std::string& name) {
  ++nodes;
  auto* n = f.target->add_node();
  n->set_op_type(type);
  n->set_name(f.prefix + name);
  for (const auto& i : ins) n->add_input(i);
  n->add_output(out);
  return n;
}

void Exporter::attr_i(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

onnx::GraphProto* Exporter::attr_g(onnx::NodeProto* n, const std::string& name) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  return a->mutable_g();
}

std::string Exporter::initializer(const std::string& base, onnx::TensorProto t) {
  const std::string name = fresh(base);
  t.set_name(name);
  *main->add_initializer() = std::move(t);
  return name;
}

// Generated constants, shared by content.
std::string Exporter::cst(const std::string& key, const std::function<onnx::TensorProto()>& make) {
  auto it = gen_consts.find(key);
  if (it != gen_consts.end()) return it->second;
  const std::string name = initializer("c_" + key, make());
  gen_consts[key] = name;
  return name;
}

std::string Exporter::cst_double(double v) {
  return cst("f64_" + fmtd(v), [v] {
    onnx::TensorProto t;
    t.set_data_type(onnx::TensorProto::DOUBLE);
    t.add_double_data(v);
    return t;
  });
}

std::string Exporter::cst_scalar(int elem, double v) {
  return cst("t" + std::to_string(elem) + "_" + fmtd(v), [elem, v] {
    onnx::TensorProto t;
    t.set_data_type(elem);
    if (elem == onnx::TensorProto::FLOAT) t.add_float_data(static_cast<float>(v));
    else if (elem == onnx::TensorProto::DOUBLE) t.add_double_data(v);
    else if (elem == onnx::TensorProto::FLOAT16) t.add_int32_data(exec::f32_to_f16_bits(static_cast<float>(v)));
    else if (elem == onnx::TensorProto::INT64) t.add_int64_data(static_cast<int64_t>(v));
    else t.add_int32_data(static_cast<int32_t>(v));
    return t;
  });
}

std::string Exporter::cst_i64s(const std::vector<int64_t>& v) {
  std::string key = "i64";
  for (auto x : v) key += "_" + std::to_string(x);
  return cst(key, [v] {
    onnx::TensorProto t;
    t.set_data_type(onnx::TensorProto::INT64);
    t.add_dims(static_cast<int64_t>(v.size()));
    for (auto x : v) t.add_int64_data(x);
    return t;
  });
}

std::string Exporter::cst_empty_i64() {  // shape [] for Reshape to a scalar
  return cst("i64_empty", [] {
    onnx::TensorProto t;
    t.set_data_type(onnx::TensorProto::INT64);
    t.add_dims(0);
    return t;
  });
}

// The bytes of a constant operand, or nullopt with the reason in `err`.
std::optional<std::string> Exporter::const_bytes(int g, int k, std::string& err) {
  const NnOperand& o = sg(g).operands[k];
  const std::string* blob = nullptr;
  if (o.lifetime == nn::CONSTANT_COPY) {
    if (!d.operand_values_loaded) return err = "operandValues could not be read", std::nullopt;
    blob = &d.operand_values;
  } else {
    if (o.pool_index >= d.pools.size() || !d.pools[o.pool_index].loaded)
      return err = "pool " + std::to_string(o.pool_index) + " does not exist or could not be read", std::nullopt;
    blob = &d.pools[o.pool_index].bytes;
  }
  const unsigned eb = elem_bytes(o.type);
  if (eb == 0) return err = nn::operand_type_name(o.type) + " constants cannot be exported", std::nullopt;
  uint64_t n = 1;
  if (!is_scalar_type(o.type)) {
    if (o.dimensions.empty()) return err = "constant of unknown rank", std::nullopt;
    for (auto dd : o.dimensions) {
      if (dd == 0) return err = "constant with an unknown dimension", std::nullopt;
      n *= dd;
      if (n > (1ULL << 32)) return err = "constant too large", std::nullopt;
    }
  } else if (!o.dimensions.empty()) {
    return err = "scalar constant with dimensions", std::nullopt;
  }
  if (static_cast<uint64_t>(o.length) != n * eb)
    return err = "constant length " + std::to_string(o.length) + " does not match its shape", std::nullopt;
  if (static_cast<uint64_t>(o.offset) + o.length > blob->size())
    return err = "constant runs past the end of its blob", std::nullopt;
  return blob->substr(o.offset, o.length);
}

std::optional<std::vector<int64_t>> Exporter::const_ints(int g, int k) {
  const NnOperand& o = sg(g).operands[k];
  if (!is_int32t(o.type) && !is_boolt(o.type)) return std::nullopt;
  if (o.lifetime != nn::CONSTANT_COPY && o.lifetime != nn::CONSTANT_REFERENCE) return std::nullopt;
  if (o.length > 256) return std::nullopt;
  std::string err;
  auto b = const_bytes(g, k, err);  // a broken constant is reported where it is used
  if (!b) return std::nullopt;
  std::vector<int64_t> v;
  const unsigned eb = elem_bytes(o.type);
  for (size_t p = 0; p + eb <= b->size(); p += eb) {
    if (eb == 4) {
      int32_t x;
      std::memcpy(&x, b->data() + p, 4);
      v.push_back(x);
    } else {
      v.push_back((*b)[p] != 0);
    }
  }
  return v;
}

std::string Exporter::op_where(const Frame& f, size_t i, int32_t type) const {
  return node_path::child(f.nn_path, node_path::node_segment("", nn::operation_name(type), i)) + " (subgraph " +
         (f.graph == 0 ? std::string("main") : "referenced[" + std::to_string(f.graph - 1) + "]") + ", operation " +
         std::to_string(i) + ", " + nn::operation_name(type) + ")";
}

// Materializes a constant as a main-graph initializer (once per operand).
std::string Exporter::materialize(Val& v, const std::string& where) {
  if (!v.name.empty() || v.const_graph < 0) return v.name;
  auto key = std::make_pair(v.const_graph, v.const_operand);
  if (auto it = const_names.find(key); it != const_names.end()) return v.name = it->second;
  const NnOperand& o = sg(v.const_graph).operands[v.const_operand];
  std::string err;
  auto bytes = const_bytes(v.const_graph, v.const_operand, err);
  if (!bytes) return problem(where + ": constant operand " + std::to_string(v.const_operand) + ": " + err), "";
  onnx::TensorProto t;
  t.set_data_type(onnx_elem(o.type));
  for (auto dd : o.dimensions) t.add_dims(dd);
  if (is_boolt(o.type))
    for (auto& c : *bytes) c = c != 0;
  t.set_raw_data(*bytes);
  const std::string name = initializer(o.name.empty() ? "const" : o.name, std::move(t));
  const_names[key] = name;
  return v.name = name;
}

void Exporter::set_type(onnx::ValueInfoProto* vi, int32_t type, const std::vector<uint32_t>* dims,
                        const std::string& name) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx_elem(type));
  if (!dims) return;
  if (is_scalar_type(type)) {
    tt->mutable_shape();
    return;
  }
  if (dims->empty()) return;  // unknown rank
  auto* sh = tt->mutable_shape();
  for (size_t k = 0; k < dims->size(); ++k) {
    auto* dm = sh->add_dim();
    if ((*dims)[k] == 0) dm->set_dim_param(name + "_d" + std::to_string(k));
    else dm->set_dim_value((*dims)[k]);
  }
}

bool Exporter::fully_known(const std::vector<uint32_t>& dims, int32_t type) {
  if (is_scalar_type(type)) return true;
  if (dims.empty()) return false;
  for (auto x : dims)
    if (x == 0) return false;
  return true;
}

Info Exporter::decl_info(const NnOperand& o) {
  Info i;
  i.type = o.type;
  i.scale = o.scale;
  i.zp = o.zero_point;
  i.dims = o.dimensions;
  return i;
}

// The value as double: (q - zp) * scale for quantized types, the number itself otherwise.
std::string Exporter::to_real(Frame& f, const std::string& name, const Info& in, const std::string& label) {
  auto* c = node(f, "Cast", {name}, fresh(name + "_f64"), label + "/f64");
  attr_i(c, "to", onnx::TensorProto::DOUBLE);
  std::string x = c->output(0);
  if (is_quant(in.type)) {
    if (in.zp != 0)
      x = node(f, "Sub", {x, cst_double(in.zp)}, fresh(name + "_minus_zp"), label + "/minus_zp")->output(0);
    if (in.scale != 1.0)
      x = node(f, "Mul", {x, cst_double(in.scale)}, fresh(name + "_real"), label + "/scale")->output(0);
  }
  return x;
}

// From double to the output's type: nearbyint(v / scale) + zp clamped for quantized types; a cast otherwise.
bool Exporter::from_real(Frame& f, const std::string& x0, const Info& out, const std::string& out_name,
                         const std::string& label, const std::string& where) {
  std::string x = x0;
  if (is_quant(out.type)) {
    if (!(out.scale > 0)) return problem(where + ": output scale " + fmtd(out.scale) + " is not positive"), false;
    if (out.scale != 1.0)
      x = node(f, "Div", {x, cst_double(out.scale)}, fresh(out_name + "_scaled"), label + "/div_scale")->output(0);
    x = node(f, "Round", {x}, fresh(out_name + "_round"), label + "/round")->output(0);
    if (out.zp != 0)
      x = node(f, "Add", {x, cst_double(out.zp)}, fresh(out_name + "_plus_zp"), label + "/plus_zp")->output(0);
    auto [lo, hi] = quant_range(out.type);
    x = node(f, "Clip", {x, cst_double(lo), cst_double(hi)}, fresh(out_name + "_clamped"), label + "/clamp")->output(0);
  } else if (!is_floatt(out.type)) {
    return problem(where + ": the result type " + nn::operand_type_name(out.type) + " is not exported"), false;
  }
  auto* c = node(f, "Cast", {x}, out_name, label + "/to_output");
  attr_i(c, "to", onnx_elem(out.type));
  return true;
}

// Fused activation on a value of ONNX element type `elem`.
std::string Exporter::activation(Frame& f, const std::string& x, int64_t act, int elem, const std::string& out,
                                 const std::string& label) {
  if (act == 0) return node(f, "Identity", {x}, out, label + "/out")->output(0);
  const bool is_int = elem == onnx::TensorProto::INT32;
  if (act == 1) {
    if (is_int) return node(f, "Max", {x, cst_scalar(elem, 0)}, out, label + "/relu")->output(0);
    return node(f, "Relu", {x}, out, label + "/relu")->output(0);
  }
  const double lo = act == 2 ? -1 : 0, hi = act == 2 ? 1 : 6;
  return node(f, "Clip", {x, cst_scalar(elem, lo), cst_scalar(elem, hi)}, out, label + (act == 2 ? "/relu1" : "/relu6"))
      ->output(0);
}

// Input k of the operation as a value (problem when it has none).
Val* Exporter::input(Frame& f, const NnOperation& o, size_t k, const std::string& where) {
  if (k >= o.inputs.size()) return problem(where + ": too few inputs"), nullptr;
  const uint32_t idx = o.inputs[k];
  if (idx >= f.vals.size())
    return problem(where + ": input " + std::to_string(k) + " names operand " + std::to_string(idx) +
                   ", which does not exist"),
           nullptr;
  Val& v = f.vals[idx];
  if (!v.has)
    return problem(where + ": input " + std::to_string(k) + " (operand " + std::to_string(idx) +
                   ") is read before it is written"),
           nullptr;
  return &v;
}

// A tensor input: materialized, not a SUBGRAPH / NO_VALUE.
Val* Exporter::tensor_in(Frame& f, const NnOperation& o, size_t k, const std::string& where) {
  Val* v = input(f, o, k, where);
  if (!v) return nullptr;
  if (v->info.no_value)
    return problem(where + ": input " + std::to_string(k) + " has no value (NO_VALUE); the execution would fail"),
           nullptr;
  if (v->info.subgraph >= 0) return problem(where + ": input " + std::to_string(k) + " is a SUBGRAPH operand"), nullptr;
  if (onnx_elem(v->info.type) == 0)
    return problem(where + ": input " + std::to_string(k) + " has type " + nn::operand_type_name(v->info.type) +
                   ", which is not exported"),
           nullptr;
  if (v->info.type == nn::TENSOR_QUANT8_SYMM_PER_CHANNEL)
    return problem(where + ": input " + std::to_string(k) +
                   " is TENSOR_QUANT8_SYMM_PER_CHANNEL, which is not exported"),
           nullptr;
  if (materialize(*v, where).empty()) return nullptr;
  return v;
}

std::optional<int64_t> Exporter::const_scalar(Frame& f, const NnOperation& o, size_t k, const std::string& where,
                                              const char* what) {
  Val* v = input(f, o, k, where);
  if (!v) return std::nullopt;
  if (!v->info.ci || v->info.ci->size() != 1)
    return problem(where + ": the " + std::string(what) + " (input " + std::to_string(k) +
                   ") is not a constant; only constant " + what + "s are exported"),
           std::nullopt;
  return v->info.ci->front();
}

std::optional<int64_t> Exporter::fused_activation(Frame& f, const NnOperation& o, size_t k, const std::string& where) {
  auto act = const_scalar(f, o, k, where, "fused activation");
  if (!act) return std::nullopt;
  if (*act < 0 || *act > 3) {
    problem(where + ": fused activation code " + std::to_string(*act) + " is not NONE, RELU, RELU1 or RELU6");
    return std::nullopt;
  }
  return act;
}

// Output k: its ONNX name (pre-assigned or fresh) and declared info.
Val* Exporter::output(Frame& f, const NnOperation& o, size_t k, const std::string& where) {
  if (k >= o.outputs.size()) return problem(where + ": too few outputs"), nullptr;
  const uint32_t idx = o.outputs[k];
  if (idx >= f.vals.size())
    return problem(where + ": output " + std::to_string(k) + " names operand " + std::to_string(idx) +
                   ", which does not exist"),
           nullptr;
  Val& v = f.vals[idx];
  const NnOperand& d0 = sg(f.graph).operands[idx];
  if (v.has || (d0.lifetime != nn::TEMPORARY_VARIABLE && d0.lifetime != nn::SUBGRAPH_OUTPUT))
    return problem(where + ": output " + std::to_string(k) + " (operand " + std::to_string(idx) +
                   ") is not a temporary or subgraph output, or is written twice"),
           nullptr;
  if (onnx_elem(d0.type) == 0)
    return problem(where + ": output " + std::to_string(k) + " has type " + nn::operand_type_name(d0.type) +
                   ", which is not exported"),
           nullptr;
  if (v.name.empty()) v.name = fresh(d0.name.empty() ? "t" : d0.name);
  v.info = decl_info(d0);
  return &v;
}

Frame& OpCall::frame() const { return x.stack[idx]; }

void OpCall::problem(const std::string& what) const { x.problem(where + ": " + what); }

Val* OpCall::in(size_t k) const { return x.tensor_in(frame(), o, k, where); }

Val* OpCall::out(size_t k) const { return x.output(frame(), o, k, where); }

bool OpCall::operands(std::initializer_list<Val**> ins, Val*& y, int64_t* act) const {
  size_t k = 0;
  for (Val** v : ins)
    if (!(*v = in(k++))) return false;
  if (act) {
    auto a = x.fused_activation(frame(), o, k, where);
    if (!a) return false;
    *act = *a;
  }
  y = out(0);
  return y != nullptr;
}

}  // namespace condlint::xport::nnapi_export
