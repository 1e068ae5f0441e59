// IR -> ONNX: MatMul, the reductions, Softmax and Convolution.
#include "export/export_ir_builder.hpp"

namespace condlint::xport::ir_export {

bool IrExporter::lower_matmul(OpCall& c) {
  const int g = c.g;
  const int k = c.k;
  onnx::GraphProto* gp = c.gp;
  const Node& node = c.node;
  const std::vector<std::string>& in = c.in;
  std::vector<std::string>& outs = c.outs;
  const std::string& nm = c.nm;
  auto need = [&](size_t count) { return need_inputs(c, count); };
  auto same_elem = [&](size_t i) { keep_elem(c, i); };
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

bool IrExporter::lower_reduce(OpCall& c) {
  const int g = c.g;
  const int k = c.k;
  onnx::GraphProto* gp = c.gp;
  const Node& node = c.node;
  const std::string& op = c.node.op;
  const std::vector<std::string>& in = c.in;
  std::vector<std::string>& outs = c.outs;
  const std::string& nm = c.nm;
  GraphState& st = c.st;
  auto need = [&](size_t count) { return need_inputs(c, count); };
  auto same_elem = [&](size_t i) { keep_elem(c, i); };
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

bool IrExporter::lower_softmax(OpCall& c) {
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
  int64_t axis = 1;
  if (!parse_int64(attr(node, "axis", "1"), axis)) {
    problem(g, k, "attribute axis=\"" + attr(node, "axis", "") + "\" is not an integer");
    return false;
  }
  set_i(add(gp, "Softmax", in, {outs[0]}, nm), "axis", axis);
  same_elem(0);
  return true;
}

bool IrExporter::lower_convolution(OpCall& c) {
  const int g = c.g;
  const int k = c.k;
  onnx::GraphProto* gp = c.gp;
  const Node& node = c.node;
  const std::vector<std::string>& in = c.in;
  std::vector<std::string>& outs = c.outs;
  const std::string& nm = c.nm;
  auto need = [&](size_t count) { return need_inputs(c, count); };
  auto same_elem = [&](size_t i) { keep_elem(c, i); };
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
  auto* conv = add(gp, "Conv", in, {outs[0]}, nm);
  if (!strides.empty()) set_ints(conv, "strides", strides);
  if (!dil.empty()) set_ints(conv, "dilations", dil);
  if (ap == "explicit" || ap.empty()) {
    if (pb.size() != pe.size()) {
      problem(g, k, "pads_begin and pads_end differ in length");
      return false;
    }
    std::vector<int64_t> pads = pb;
    pads.insert(pads.end(), pe.begin(), pe.end());
    if (!pads.empty()) set_ints(conv, "pads", pads);
  } else if (ap == "valid") {
    set_s(conv, "auto_pad", "VALID");
  } else if (ap == "same_upper") {
    set_s(conv, "auto_pad", "SAME_UPPER");
  } else if (ap == "same_lower") {
    set_s(conv, "auto_pad", "SAME_LOWER");
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

}  // namespace condlint::xport::ir_export
