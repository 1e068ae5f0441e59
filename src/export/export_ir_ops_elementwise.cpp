// IR -> ONNX: element-wise ops, Const, Convert and Round.
#include "export/export_ir_builder.hpp"

#include <map>

namespace condlint::xport::ir_export {

bool IrExporter::lower_binary(OpCall& c, const std::string& onnx_op) {
  if (!c.need(2) || !broadcast_ok(c.g, c.k)) return false;
  c.add_out(onnx_op, c.in);
  c.same_elem(0);
  return true;
}

bool IrExporter::lower_unary(OpCall& c, const std::string& onnx_op) {
  if (!c.need(1)) return false;
  c.add_out(onnx_op, c.in);
  c.same_elem(0);
  return true;
}

bool IrExporter::lower_const(OpCall& c) {
  onnx::TensorProto tp;
  if (!const_proto(c.g, c.k, tp)) return false;
  tp.set_name(c.outs[0]);
  if (!is_concrete(c.elems[0])) c.elems[0] = m_.ir->consts[consts_.at({c.g, c.k})].elem;
  if (c.w.main) {
    *c.gp->add_initializer() = std::move(tp);
  } else {
    auto* cn = c.add_out("Constant", {});
    auto* a = cn->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    *a->mutable_t() = std::move(tp);
    a->mutable_t()->clear_name();
  }
  return true;
}

bool IrExporter::lower_not_equal(OpCall& c) {
  if (!c.need(2) || !broadcast_ok(c.g, c.k)) return false;
  const std::string eq = fresh(c.nm + "_equal");
  c.add("Equal", c.in, {eq}, eq);
  c.add_out("Not", {eq});
  return true;
}

bool IrExporter::lower_divide(OpCall& c) {
  if (!c.need(2) || !broadcast_ok(c.g, c.k)) return false;
  c.same_elem(0);
  const ElemType e = elem_in(c.st, c.node, 0);
  auto dt = dt_of(e);
  if (!dt) {
    c.problem("the element type of input 0 is not known: integer Divide floors, float Divide does not");
    return false;
  }
  bool pydiv = true;
  if (!c.bool_attr("m_pythondiv", "true", pydiv)) return false;
  const std::vector<std::string>& in = c.in;
  if (exec::is_float(*dt) || !pydiv) {
    c.add_out("Div", in);
    return true;
  }
  // Python (floor) division for integers: ONNX Div truncates; subtract 1 where the remainder is non-zero
  // and the signs differ.
  const std::string& nm = c.nm;
  const std::string q = fresh(nm + "_trunc");
  c.add("Div", in, {q}, q);
  const std::string rem = fresh(nm + "_rem");
  set_i(c.add("Mod", in, {rem}, rem), "fmod", 1);
  const std::string zero = const_scalar(c.gp, *dt, 0, nm + "_zero");
  const std::string rz = fresh(nm + "_rem_is_zero");
  c.add("Equal", {rem, zero}, {rz}, rz);
  const std::string rnz = fresh(nm + "_rem_nonzero");
  c.add("Not", {rz}, {rnz}, rnz);
  const std::string an = fresh(nm + "_a_neg"), bn = fresh(nm + "_b_neg"), sd = fresh(nm + "_signs_differ");
  c.add("Less", {in[0], zero}, {an}, an);
  c.add("Less", {in[1], zero}, {bn}, bn);
  c.add("Xor", {an, bn}, {sd}, sd);
  const std::string fix = fresh(nm + "_fix");
  c.add("And", {rnz, sd}, {fix}, fix);
  const std::string fixn = cast(c.gp, fix, *dt, nm + "_fix_num");
  c.add_out("Sub", {q, fixn});
  return true;
}

bool IrExporter::lower_select(OpCall& c) {
  if (!c.need(3) || !broadcast_ok(c.g, c.k)) return false;
  std::string cond = c.in[0];
  if (elem_in(c.st, c.node, 0) != ElemType::Boolean) cond = cast(c.gp, cond, DT::Bool, c.nm + "_cond");
  c.add_out("Where", {cond, c.in[1], c.in[2]});
  if (!is_concrete(c.elems[0])) c.elems[0] = elem_in(c.st, c.node, 1);
  return true;
}

bool IrExporter::lower_convert(OpCall& c) {
  if (!c.need(1)) return false;
  static const std::map<std::string, DT> names{
      {"boolean", DT::Bool}, {"f16", DT::F16}, {"bf16", DT::BF16}, {"f32", DT::F32}, {"f64", DT::F64},
      {"i8", DT::I8},        {"i16", DT::I16}, {"i32", DT::I32},   {"i64", DT::I64}, {"u8", DT::U8},
      {"u16", DT::U16},      {"u32", DT::U32}, {"u64", DT::U64}};
  const std::string to = c.attr("destination_type", "");
  auto it = names.find(to);
  if (it == names.end()) {
    auto e = parse_ov_elem_type(to);
    c.problem("Convert to '" + to + "': " + (e ? no_onnx_type(*e) : std::string("not an element type")));
    return false;
  }
  set_i(c.add_out("Cast", c.in), "to", static_cast<int>(it->second));
  for (const auto& [ename, edt] : names)
    if (ename == to) c.elems[0] = *parse_ov_elem_type(ename);
  return true;
}

bool IrExporter::lower_round(OpCall& c) {
  if (!c.need(1)) return false;
  const std::string mode = c.attr("mode", "half_to_even");
  if (mode != "half_to_even") {
    c.problem("mode=" + mode + ": ONNX Round rounds halves to even only");
    return false;
  }
  c.add_out("Round", c.in);
  c.same_elem(0);
  note_unchecked("Round", "half_to_even", "Round");
  return true;
}

}  // namespace condlint::xport::ir_export
