// IR -> ONNX: ops that move or reshape data (Concat, Reshape, Gather, StridedSlice, Broadcast, ...).
#include "export/export_ir_builder.hpp"

#include <algorithm>
#include <limits>

namespace condlint::xport::ir_export {

bool IrExporter::lower_concat(OpCall& c) { return lower_with_axis(c, "Concat", "0"); }

bool IrExporter::lower_reshape(OpCall& c) {
  if (!c.need(2)) return false;
  bool special_zero = false;
  if (!c.bool_attr("special_zero", "false", special_zero)) return false;
  if (!special_zero && o_.opset < 14) {
    if (auto v = c.const_ints(1); !v || std::find(v->begin(), v->end(), 0) != v->end()) {
      c.problem("special_zero=false needs ONNX Reshape allowzero (opset 14 or later), the export targets opset " +
                std::to_string(o_.opset));
      return false;
    }
  }
  const std::string shp = c.flat_i64(1, "_shape");
  auto* r = c.add_out("Reshape", {c.in[0], shp});
  if (o_.opset >= 14) set_i(r, "allowzero", special_zero ? 0 : 1);
  c.same_elem(0);
  return true;
}

bool IrExporter::lower_squeeze(OpCall& c) {
  const std::string& op = c.node.op;
  const std::vector<std::string>& in = c.in;
  if (in.empty() || in.size() > 2 || (op == "Unsqueeze" && in.size() != 2)) {
    c.problem("takes " + std::string(op == "Squeeze" ? "1 or 2" : "2") + " inputs, has " + std::to_string(in.size()));
    return false;
  }
  if (in.size() == 1) c.add_out(op, {in[0]});
  else c.add_out(op, {in[0], c.flat_i64(1, "_axes")});
  c.same_elem(0);
  return true;
}

bool IrExporter::lower_shape_of(OpCall& c) {
  if (!c.need(1)) return false;
  const std::string ot = c.attr("output_type", "i64");
  if (ot != "i64" && ot != "i32") {
    c.problem("output_type=\"" + ot + "\" is neither i32 nor i64");
    return false;
  }
  if (ot == "i64") {
    c.add_out("Shape", c.in);
  } else {
    const std::string s = fresh(c.nm + "_i64");
    c.add("Shape", c.in, {s}, s);
    set_i(c.add_out("Cast", {s}), "to", static_cast<int>(DT::I32));
  }
  c.elems[0] = ot == "i64" ? ElemType::I64 : ElemType::I32;
  return true;
}

bool IrExporter::lower_gather(OpCall& c) {
  if (!c.need(2, true)) return false;
  const std::vector<std::string>& in = c.in;
  int64_t bd = 0;
  if (!parse_int64(c.attr("batch_dims", "0"), bd) || bd != 0) {
    c.problem("batch_dims=" + c.attr("batch_dims", "0") + ": only batch_dims=0 has an exact ONNX Gather");
    return false;
  }
  int64_t axis = 0;
  if (in.size() == 3) {
    auto v = c.const_ints(2);
    if (!v || v->size() != 1) {
      c.problem("the axis input is not a one-element integer Const (ONNX Gather takes the axis as an attribute)");
      return false;
    }
    axis = (*v)[0];
  }
  std::string idx = in[1];
  const ElemType ie = elem_in(c.st, c.node, 1);
  if (ie != ElemType::I64 && ie != ElemType::I32) idx = cast(c.gp, idx, DT::I64, c.nm + "_indices");
  set_i(c.add_out("Gather", {in[0], idx}), "axis", axis);
  c.same_elem(0);
  return true;
}

bool IrExporter::lower_strided_slice(OpCall& c) {
  if (!c.need(3, true)) return false;
  const std::vector<std::string>& in = c.in;
  std::vector<int64_t> masks[5];
  const char* mask_names[5] = {"begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask"};
  for (int i = 0; i < 5; ++i) {
    auto v = parse_int_list(c.attr(mask_names[i], ""));
    if (!v) {
      c.problem(std::string("attribute ") + mask_names[i] + " is not a list of integers");
      return false;
    }
    masks[i] = *v;
  }
  auto bit = [](const std::vector<int64_t>& m, size_t j) { return j < m.size() && m[j] != 0; };
  auto begin = c.const_ints(1), end = c.const_ints(2);
  std::optional<std::vector<int64_t>> stride;
  if (in.size() > 3) stride = c.const_ints(3);
  else if (begin) stride = std::vector<int64_t>(begin->size(), 1);
  if (!begin || !end || !stride) {
    // Runtime begin/end/stride: exact only when no mask bit is set (ONNX Slice then does the same).
    bool any = false;
    for (const auto& m : masks)
      for (int64_t x : m) any |= x != 0;
    if (any) {
      c.problem("begin/end/stride are not Consts and a mask is set (only the plain form exports as ONNX Slice)");
      return false;
    }
    std::vector<std::string> ins{in[0], c.flat_i64(1, "_begin"), c.flat_i64(2, "_end"), ""};
    if (in.size() > 3) ins.push_back(c.flat_i64(3, "_stride"));
    else ins.pop_back();
    c.add_out("Slice", ins);
    c.same_elem(0);
    return true;
  }
  for (size_t j = 0; j < begin->size(); ++j)
    if (bit(masks[2], j) || bit(masks[4], j)) {
      c.problem("new_axis_mask/ellipsis_mask are not exported (the IR executor does not run them either)");
      return false;
    }
  for (size_t j = begin->size(); j < masks[3].size(); ++j)
    if (masks[3][j] != 0) {
      c.problem("shrink_axis_mask sets bit " + std::to_string(j) + ", beyond the " + std::to_string(begin->size()) +
                " sliced axes (not exported)");
      return false;
    }
  if (end->size() != begin->size() || stride->size() != begin->size()) {
    c.problem("begin/end/stride lengths differ");
    return false;
  }
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
  std::vector<int64_t> starts, ends, axes, steps, shrink;
  for (size_t j = 0; j < begin->size(); ++j) {
    const int64_t s = (*stride)[j];
    if (s == 0) {
      c.problem("stride is 0");
      return false;
    }
    int64_t b = (*begin)[j], e = (*end)[j];
    if (bit(masks[3], j)) {
      if (s < 0) {
        c.problem("shrink axis with a negative stride");
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
  onnx::GraphProto* gp = c.gp;
  const std::string& nm = c.nm;
  const int64_t len = static_cast<int64_t>(starts.size());
  std::vector<std::string> ins{in[0], const_i64(gp, starts, {len}, nm + "_starts"),
                               const_i64(gp, ends, {len}, nm + "_ends"), const_i64(gp, axes, {len}, nm + "_axes"),
                               const_i64(gp, steps, {len}, nm + "_steps")};
  if (shrink.empty()) {
    c.add_out("Slice", ins);
  } else {
    const std::string sl = fresh(nm + "_slice");
    c.add("Slice", ins, {sl}, sl);
    c.add_out("Squeeze", {sl, const_i64(gp, shrink, {static_cast<int64_t>(shrink.size())}, nm + "_shrink")});
  }
  c.same_elem(0);
  return true;
}

bool IrExporter::lower_transpose(OpCall& c) {
  if (!c.need(2)) return false;
  auto perm = c.const_ints(1);
  if (!perm) {
    c.problem("the permutation is not an integer Const (ONNX Transpose takes it as an attribute)");
    return false;
  }
  auto* t = c.add_out("Transpose", {c.in[0]});
  if (!perm->empty()) set_ints(t, "perm", *perm);
  c.same_elem(0);
  return true;
}

bool IrExporter::lower_broadcast(OpCall& c) {
  if (c.in.size() != 2) {
    c.problem("Broadcast with " + std::to_string(c.in.size()) + " inputs (only numpy/bidirectional with 2 export)");
    return false;
  }
  const std::string mode = c.attr("mode", "numpy");
  if (mode != "numpy" && mode != "bidirectional") {
    c.problem("mode=" + mode + " has no exact ONNX equivalent");
    return false;
  }
  if (mode == "numpy") {
    // OpenVINO's numpy mode gives exactly the target shape; ONNX Expand is bidirectional. Exact when the
    // input's static shape broadcasts into the target without growing it.
    auto target = c.const_ints(1);
    auto xs = c.node.inputs.empty() ? std::nullopt : port_shape(c.node.inputs[0]);
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
  c.add_out("Expand", {c.in[0], c.flat_i64(1, "_shape")});
  c.same_elem(0);
  return true;
}

}  // namespace condlint::xport::ir_export
