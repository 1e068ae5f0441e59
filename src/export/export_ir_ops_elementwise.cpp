// IR -> ONNX: element-wise ops, Const, Convert and Round.
#include "export/export_ir_builder.hpp"

#include <map>

namespace condlint::xport::ir_export {

bool IrExporter::lower_binary(OpCall& c, const std::string& onnx_op) {
  if (!need_inputs(c, 2) || !broadcast_ok(c.g, c.k)) return false;
  add(c.gp, onnx_op, c.in, {c.outs[0]}, c.nm);
  keep_elem(c, 0);
  return true;
}

bool IrExporter::lower_unary(OpCall& c, const std::string& onnx_op) {
  if (!need_inputs(c, 1)) return false;
  add(c.gp, onnx_op, c.in, {c.outs[0]}, c.nm);
  keep_elem(c, 0);
  return true;
}

bool IrExporter::lower_const(OpCall& c) {
  const int g = c.g;
  const int k = c.k;
  onnx::GraphProto* gp = c.gp;
  std::vector<std::string>& outs = c.outs;
  std::vector<ElemType>& elems = c.elems;
  const std::string& nm = c.nm;
  Work& w = c.w;
  onnx::TensorProto tp;
  if (!const_proto(g, k, tp)) return false;
  tp.set_name(outs[0]);
  if (!is_concrete(elems[0])) elems[0] = m_.ir->consts[consts_.at({g, k})].elem;
  if (w.main) {
    *gp->add_initializer() = std::move(tp);
  } else {
    auto* cn = add(gp, "Constant", {}, {outs[0]}, nm);
    auto* a = cn->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    *a->mutable_t() = std::move(tp);
    a->mutable_t()->clear_name();
  }
  return true;
}

bool IrExporter::lower_not_equal(OpCall& c) {
  const int g = c.g;
  const int k = c.k;
  onnx::GraphProto* gp = c.gp;
  const std::vector<std::string>& in = c.in;
  std::vector<std::string>& outs = c.outs;
  const std::string& nm = c.nm;
  auto need = [&](size_t count) { return need_inputs(c, count); };
  if (!need(2) || !broadcast_ok(g, k)) return false;
  const std::string eq = fresh(nm + "_equal");
  add(gp, "Equal", in, {eq}, eq);
  add(gp, "Not", {eq}, {outs[0]}, nm);
  return true;
}

bool IrExporter::lower_divide(OpCall& c) {
  const int g = c.g;
  const int k = c.k;
  onnx::GraphProto* gp = c.gp;
  const Node& node = c.node;
  const std::vector<std::string>& in = c.in;
  std::vector<std::string>& outs = c.outs;
  const std::string& nm = c.nm;
  GraphState& st = c.st;
  auto need = [&](size_t count) { return need_inputs(c, count); };
  auto same_elem = [&](size_t i) { keep_elem(c, i); };
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

bool IrExporter::lower_select(OpCall& c) {
  const int g = c.g;
  const int k = c.k;
  onnx::GraphProto* gp = c.gp;
  const Node& node = c.node;
  const std::vector<std::string>& in = c.in;
  std::vector<std::string>& outs = c.outs;
  std::vector<ElemType>& elems = c.elems;
  const std::string& nm = c.nm;
  GraphState& st = c.st;
  auto need = [&](size_t count) { return need_inputs(c, count); };
  if (!need(3) || !broadcast_ok(g, k)) return false;
  std::string cond = in[0];
  if (elem_in(st, node, 0) != ElemType::Boolean) cond = cast(gp, cond, DT::Bool, nm + "_cond");
  add(gp, "Where", {cond, in[1], in[2]}, {outs[0]}, nm);
  if (!is_concrete(elems[0])) elems[0] = elem_in(st, node, 1);
  return true;
}

bool IrExporter::lower_convert(OpCall& c) {
  const int g = c.g;
  const int k = c.k;
  onnx::GraphProto* gp = c.gp;
  const Node& node = c.node;
  const std::vector<std::string>& in = c.in;
  std::vector<std::string>& outs = c.outs;
  std::vector<ElemType>& elems = c.elems;
  const std::string& nm = c.nm;
  auto need = [&](size_t count) { return need_inputs(c, count); };
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

bool IrExporter::lower_round(OpCall& c) {
  const int g = c.g;
  const int k = c.k;
  onnx::GraphProto* gp = c.gp;
  const Node& node = c.node;
  const std::vector<std::string>& in = c.in;
  std::vector<std::string>& outs = c.outs;
  const std::string& nm = c.nm;
  auto need = [&](size_t count) { return need_inputs(c, count); };
  auto same_elem = [&](size_t i) { keep_elem(c, i); };
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

}  // namespace condlint::xport::ir_export
