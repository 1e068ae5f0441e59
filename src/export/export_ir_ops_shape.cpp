// IR -> ONNX: ops that move or reshape data (Concat, Reshape, Gather, StridedSlice, Broadcast, ...).
#include "export/export_ir_builder.hpp"

#include <algorithm>
#include <limits>

namespace condlint::xport::ir_export {

bool IrExporter::lower_concat(OpCall& c) {
  const int g = c.g;
  const int k = c.k;
  onnx::GraphProto* gp = c.gp;
  const Node& node = c.node;
  const std::vector<std::string>& in = c.in;
  std::vector<std::string>& outs = c.outs;
  const std::string& nm = c.nm;
  auto same_elem = [&](size_t i) { keep_elem(c, i); };
  int64_t axis = 0;
  if (!parse_int64(attr(node, "axis", "0"), axis)) {
    problem(g, k, "attribute axis=\"" + attr(node, "axis", "") + "\" is not an integer");
    return false;
  }
  set_i(add(gp, "Concat", in, {outs[0]}, nm), "axis", axis);
  same_elem(0);
  return true;
}

bool IrExporter::lower_reshape(OpCall& c) {
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

bool IrExporter::lower_squeeze(OpCall& c) {
  const int g = c.g;
  const int k = c.k;
  onnx::GraphProto* gp = c.gp;
  const std::string& op = c.node.op;
  const std::vector<std::string>& in = c.in;
  std::vector<std::string>& outs = c.outs;
  const std::string& nm = c.nm;
  GraphState& st = c.st;
  auto same_elem = [&](size_t i) { keep_elem(c, i); };
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

bool IrExporter::lower_shape_of(OpCall& c) {
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

bool IrExporter::lower_gather(OpCall& c) {
  const int g = c.g;
  const int k = c.k;
  onnx::GraphProto* gp = c.gp;
  const Node& node = c.node;
  const std::vector<std::string>& in = c.in;
  std::vector<std::string>& outs = c.outs;
  const std::string& nm = c.nm;
  GraphState& st = c.st;
  auto same_elem = [&](size_t i) { keep_elem(c, i); };
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
      problem(g, k, "the axis input is not a one-element integer Const (ONNX Gather takes the axis as an attribute)");
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

bool IrExporter::lower_strided_slice(OpCall& c) { return strided_slice(c.w, c.st, c.k, c.in); }

bool IrExporter::strided_slice(Work& w, GraphState& st, int k, const std::vector<std::string>& in) {
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

bool IrExporter::lower_transpose(OpCall& c) {
  const int g = c.g;
  const int k = c.k;
  onnx::GraphProto* gp = c.gp;
  const std::vector<std::string>& in = c.in;
  std::vector<std::string>& outs = c.outs;
  const std::string& nm = c.nm;
  auto need = [&](size_t count) { return need_inputs(c, count); };
  auto same_elem = [&](size_t i) { keep_elem(c, i); };
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

bool IrExporter::lower_broadcast(OpCall& c) {
  const int g = c.g;
  const int k = c.k;
  onnx::GraphProto* gp = c.gp;
  const Node& node = c.node;
  const std::vector<std::string>& in = c.in;
  std::vector<std::string>& outs = c.outs;
  const std::string& nm = c.nm;
  GraphState& st = c.st;
  auto same_elem = [&](size_t i) { keep_elem(c, i); };
  if (in.size() != 2) {
    problem(g, k, "Broadcast with " + std::to_string(in.size()) + " inputs (only numpy/bidirectional with 2 export)");
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

}  // namespace condlint::xport::ir_export
