// IR -> ONNX: MatMul, the reductions, Softmax and Convolution.
#include "export/export_ir_builder.hpp"

#include <algorithm>

#include "exec/ir_exec.hpp"

namespace condlint::xport::ir_export {

bool IrExporter::lower_matmul(OpCall& c) {
  if (!c.need(2)) return false;
  std::string ab[2] = {c.in[0], c.in[1]};
  for (int i = 0; i < 2; ++i) {
    const char* an = i == 0 ? "transpose_a" : "transpose_b";
    bool tr = false;
    if (!c.bool_attr(an, "false", tr)) return false;
    if (!tr) continue;
    std::optional<Shape> s = i < static_cast<int>(c.node.inputs.size()) ? port_shape(c.node.inputs[i]) : std::nullopt;
    if (!s) {
      c.problem(std::string(an) + "=true with an input of unknown rank (the transposition needs the rank)");
      return false;
    }
    const int64_t r = static_cast<int64_t>(s->dims.size());
    if (r < 2) continue;
    std::vector<int64_t> perm(r);
    for (int64_t d = 0; d < r; ++d) perm[d] = d;
    std::swap(perm[r - 1], perm[r - 2]);
    const std::string t = fresh(c.nm + (i == 0 ? "_a_T" : "_b_T"));
    set_ints(c.add("Transpose", {ab[i]}, {t}, t), "perm", perm);
    ab[i] = t;
  }
  c.add_out("MatMul", {ab[0], ab[1]});
  c.same_elem(0);
  return true;
}

bool IrExporter::lower_reduce(OpCall& c) {
  const std::string& op = c.node.op;
  if (!c.need(2)) return false;
  bool keep = false;
  if (!c.bool_attr("keep_dims", "false", keep)) return false;
  c.same_elem(0);
  if (op == "ReduceSum" || o_.opset >= 18) {
    auto* r = c.add_out(op, {c.in[0], c.flat_i64(1, "_axes")});
    set_i(r, "keepdims", keep ? 1 : 0);
    set_i(r, "noop_with_empty_axes", 1);
    return true;
  }
  auto v = c.const_ints(1);
  if (!v) {
    c.problem("the axes input is not an integer Const; ONNX " + op +
              " takes axes as an input only from opset 18 (exporting opset " + std::to_string(o_.opset) + ")");
    return false;
  }
  if (v->empty()) {
    c.add_out("Identity", {c.in[0]});  // no axes: nothing reduced
    return true;
  }
  auto* r = c.add_out(op, {c.in[0]});
  set_ints(r, "axes", *v);
  set_i(r, "keepdims", keep ? 1 : 0);
  return true;
}

bool IrExporter::lower_softmax(OpCall& c) { return c.need(1) && lower_with_axis(c, "Softmax", "1"); }

bool IrExporter::lower_with_axis(OpCall& c, const std::string& onnx_op, const char* def) {
  int64_t axis = 0;
  if (!c.int_attr("axis", def, axis)) return false;
  set_i(c.add_out(onnx_op, c.in), "axis", axis);
  c.same_elem(0);
  return true;
}

bool IrExporter::lower_convolution(OpCall& c) {
  if (!c.need(2)) return false;
  std::vector<int64_t> strides, dil, pb, pe;
  if (!c.ints_attr("strides", strides) || !c.ints_attr("dilations", dil) || !c.ints_attr("pads_begin", pb) ||
      !c.ints_attr("pads_end", pe))
    return false;
  const std::string ap = c.attr("auto_pad", "explicit");
  auto* conv = c.add_out("Conv", c.in);
  if (!strides.empty()) set_ints(conv, "strides", strides);
  if (!dil.empty()) set_ints(conv, "dilations", dil);
  if (ap == "explicit" || ap.empty()) {
    if (pb.size() != pe.size()) {
      c.problem("pads_begin and pads_end differ in length");
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
    c.problem("auto_pad=" + ap + " is not an OpenVINO padding mode");
    return false;
  }
  c.same_elem(0);
  note_unchecked("Convolution", "", "Conv");
  return true;
}

void IrExporter::note_unchecked(const std::string& op, const std::string& mode, const std::string& onnx_op) {
  const auto runs = exec::ir_op_types();  // sorted
  if (std::binary_search(runs.begin(), runs.end(), op)) return;  // the IR executor runs it: diff checks it there
  note(op + (mode.empty() ? "" : " (" + mode + ")") + " is exported as ONNX " + onnx_op +
       "; condlint's IR executor does not run " + op + ", so this op is not checked against it");
}

}  // namespace condlint::xport::ir_export
