// NNAPI -> ONNX: arithmetic, comparisons, logic, FULLY_CONNECTED, CONCATENATION and SLICE.
#include "export/export_nnapi_builder.hpp"

#include <algorithm>

namespace condlint::xport::nnapi_export {

void Exporter::arith(OpCall& c) {
  Val *a, *b, *y;
  int64_t act = 0;
  if (!c.operands({&a, &b}, y, &act)) return;
  Frame& f = c.frame();
  const std::string& L = c.L;
  const int32_t ta = a->info.type;
  if (is_floatt(ta) != is_floatt(b->info.type) || is_quant(ta) != is_quant(b->info.type) ||
      is_int32t(ta) != is_int32t(b->info.type) || (!is_quant(ta) && onnx_elem(ta) != onnx_elem(b->info.type)))
    return c.problem("operand types differ (" + info_str(a->info) + " and " + info_str(b->info) + ")");
  const char* op_type = c.row.onnx;
  if (is_quant(ta)) {
    if (is(c, "DIV")) return c.problem("DIV of quantized tensors is not exported");
    if (!is_quant(y->info.type)) return c.problem("quantized inputs, output " + info_str(y->info));
    has_quant = true;
    const std::string xa = to_real(f, a->name, a->info, L + "/a"), xb = to_real(f, b->name, b->info, L + "/b");
    const std::string z = node(f, op_type, {xa, xb}, fresh(y->name + "_real"), L)->output(0);
    const std::string za = act ? activation(f, z, act, onnx::TensorProto::DOUBLE, fresh(y->name + "_act"), L) : z;
    if (!from_real(f, za, y->info, y->name, L, c.where)) return;
  } else if (is_floatt(ta) || is_int32t(ta)) {
    if (onnx_elem(y->info.type) != onnx_elem(ta))
      return c.problem("inputs are " + info_str(a->info) + ", output " + info_str(y->info));
    if (is_int32t(ta) && is(c, "DIV")) return c.problem("DIV of TENSOR_INT32 is not exported");
    if (is_int32t(ta) && is(c, "MUL")) has_int_mul = true;
    if (act == 0) {
      node(f, op_type, {a->name, b->name}, y->name, L);
    } else {
      const std::string z = node(f, op_type, {a->name, b->name}, fresh(y->name + "_pre"), L)->output(0);
      activation(f, z, act, onnx_elem(ta), y->name, L);
    }
  } else {
    return c.problem(std::string(nn::operation_name(c.o.type)) + " of " + info_str(a->info) + " is not exported");
  }
  written(y);
}

void Exporter::compare(OpCall& c) {
  Val *a, *b, *y;
  if (!c.operands({&a, &b}, y)) return;
  Frame& f = c.frame();
  const std::string& L = c.L;
  if (!is_boolt(y->info.type)) return c.problem("the output is " + info_str(y->info) + ", not TENSOR_BOOL8");
  std::string xa = a->name, xb = b->name;
  if (is_quant(a->info.type) || is_quant(b->info.type)) {
    if (!is_quant(a->info.type) || !is_quant(b->info.type))
      return c.problem("operand types differ (" + info_str(a->info) + " and " + info_str(b->info) + ")");
    has_quant = true;
    xa = to_real(f, xa, a->info, L + "/a");
    xb = to_real(f, xb, b->info, L + "/b");
  } else if (onnx_elem(a->info.type) != onnx_elem(b->info.type)) {
    return c.problem("operand types differ (" + info_str(a->info) + " and " + info_str(b->info) + ")");
  }
  if (c.row.negate) {
    const std::string e = node(f, "Equal", {xa, xb}, fresh(y->name + "_eq"), L)->output(0);
    node(f, "Not", {e}, y->name, L + "/not");
  } else {
    node(f, c.row.onnx, {xa, xb}, y->name, L);
  }
  written(y);
}

void Exporter::logical(OpCall& c) {
  const bool unary = is(c, "LOGICAL_NOT");
  Val *a, *b, *y;
  if (!(unary ? c.operands({&a}, y) : c.operands({&a, &b}, y))) return;
  if (unary) b = a;
  if (!is_boolt(a->info.type) || !is_boolt(b->info.type) || !is_boolt(y->info.type))
    return c.problem("operands are not TENSOR_BOOL8");
  if (unary) node(c.frame(), "Not", {a->name}, y->name, c.L);
  else node(c.frame(), c.row.onnx, {a->name, b->name}, y->name, c.L);
  written(y);
}

void Exporter::fully_connected(OpCall& c) {
  Val *x, *w, *b, *y;
  int64_t act = 0;
  if (!c.operands({&x, &w, &b}, y, &act)) return;
  Frame& f = c.frame();
  const std::string& L = c.L;
  has_fc = true;
  for (const Val* v : {x, w, b})
    if (!is_floatt(v->info.type) && !is_quant(v->info.type) && !(v == b && is_int32t(v->info.type)))
      return c.problem(info_str(v->info) + " operands are not exported");
  const auto& wd = w->info.dims;
  const auto& bd = b->info.dims;
  if (wd.size() != 2 || wd[0] == 0 || bd.size() != 1 || bd[0] != wd[0])
    return c.problem(
        "the weights must be declared [units, input_size] and the bias [units] (the executor's bias "
        "handling depends on the sizes; these are not declared)");
  if (is_quant(x->info.type) || is_quant(w->info.type)) has_quant = true;
  const std::string xd = to_real(f, x->name, x->info, L + "/input");
  const std::string wdn = to_real(f, w->name, w->info, L + "/weights");
  std::string shape;
  if (wd[1] != 0) {
    shape = cst_i64s({-1, static_cast<int64_t>(wd[1])});
  } else {
    const std::string sw = node(f, "Shape", {w->name}, fresh(y->name + "_wshape"), L + "/wshape")->output(0);
    const std::string sz =
        node(f, "Slice", {sw, cst_i64s({1}), cst_i64s({2})}, fresh(y->name + "_size"), L + "/size")->output(0);
    shape = node(f, "Concat", {cst_i64s({-1}), sz}, fresh(y->name + "_2d"), L + "/shape2d")->output(0);
    attr_i(f.target->mutable_node(f.target->node_size() - 1), "axis", 0);
  }
  const std::string x2 = node(f, "Reshape", {xd, shape}, fresh(y->name + "_in2d"), L + "/reshape")->output(0);
  // Bias as the executor reads it: an int32 bias with a scale is bias * scale; with scale 0 next to quantized
  // operands it is bias * input_scale * weights_scale (in that order); otherwise its real value.
  std::string bias;
  if (is_int32t(b->info.type)) {
    auto* to_f64 = node(f, "Cast", {b->name}, fresh(b->name + "_f64"), L + "/bias_f64");
    attr_i(to_f64, "to", onnx::TensorProto::DOUBLE);
    bias = to_f64->output(0);
    if (b->info.scale > 0) {
      if (b->info.scale != 1.0)
        bias =
            node(f, "Mul", {bias, cst_double(b->info.scale)}, fresh(b->name + "_real"), L + "/bias_scale")->output(0);
    } else if (is_quant(x->info.type)) {
      bias =
          node(f, "Mul", {bias, cst_double(x->info.scale)}, fresh(b->name + "_xs"), L + "/bias_input_scale")->output(0);
      bias = node(f, "Mul", {bias, cst_double(w->info.scale)}, fresh(b->name + "_real"), L + "/bias_weights_scale")
                 ->output(0);
    } else {
      return c.problem("a TENSOR_INT32 bias without scale next to float operands is not exported");
    }
  } else {
    bias = to_real(f, b->name, b->info, L + "/bias");
  }
  auto* gm = node(f, "Gemm", {x2, wdn, bias}, fresh(y->name + "_real"), L);
  attr_i(gm, "transB", 1);
  std::string z = gm->output(0);
  if (act) z = activation(f, z, act, onnx::TensorProto::DOUBLE, fresh(y->name + "_act"), L);
  if (!from_real(f, z, y->info, y->name, L, c.where)) return;
  written(y);
}

void Exporter::concatenation(OpCall& c) {
  const size_t n_in = c.o.inputs.size();
  if (n_in < 2) return c.problem("CONCATENATION needs inputs and an axis");
  std::vector<Val*> xs;
  for (size_t k = 0; k + 1 < n_in; ++k) {
    Val* v = c.in(k);
    if (!v) return;
    xs.push_back(v);
  }
  Frame& f = c.frame();
  const std::string& L = c.L;
  auto axis = const_scalar(f, c.o, n_in - 1, c.where, "axis");
  if (!axis) return;
  Val* y = c.out(0);
  if (!y) return;
  bool native = true, any_quant = false;
  for (Val* v : xs) {
    any_quant = any_quant || is_quant(v->info.type);
    if (is_quant(y->info.type) ? !same_quant(v->info, y->info) : onnx_elem(v->info.type) != onnx_elem(y->info.type))
      native = false;
  }
  std::vector<std::string> names;
  if (native) {
    for (Val* v : xs) names.push_back(v->name);
    attr_i(node(f, "Concat", names, y->name, L), "axis", *axis);
  } else {
    if (!any_quant && !is_quant(y->info.type)) return c.problem("inputs and output differ in type");
    has_quant = true;
    for (size_t k = 0; k < xs.size(); ++k)
      names.push_back(to_real(f, xs[k]->name, xs[k]->info, L + "/in" + std::to_string(k)));
    auto* cat = node(f, "Concat", names, fresh(y->name + "_real"), L);
    attr_i(cat, "axis", *axis);
    if (!from_real(f, cat->output(0), y->info, y->name, L, c.where)) return;
  }
  written(y);
}

void Exporter::slice(OpCall& c) {
  Val* x = c.in(0);
  Val* beg = x ? c.in(1) : nullptr;
  Val* sz = beg ? c.in(2) : nullptr;
  if (!sz) return;
  if (!is_int32t(beg->info.type) || !is_int32t(sz->info.type)) return c.problem("begin and size must be TENSOR_INT32");
  Val* y = c.out(0);
  if (!y) return;
  if (onnx_elem(y->info.type) != onnx_elem(x->info.type))
    return c.problem("input " + info_str(x->info) + ", output " + info_str(y->info));
  Frame& f = c.frame();
  const std::string& L = c.L;
  has_slice = true;
  std::string starts, ends;
  if (beg->info.ci && sz->info.ci && beg->info.ci->size() == sz->info.ci->size() &&
      std::none_of(sz->info.ci->begin(), sz->info.ci->end(), [](int64_t v) { return v == -1; })) {
    std::vector<int64_t> e;
    for (size_t k = 0; k < beg->info.ci->size(); ++k) e.push_back((*beg->info.ci)[k] + (*sz->info.ci)[k]);
    starts = cst_i64s(*beg->info.ci);
    ends = cst_i64s(e);
  } else {
    auto* c1 = node(f, "Cast", {beg->name}, fresh(y->name + "_starts"), L + "/starts");
    attr_i(c1, "to", onnx::TensorProto::INT64);
    auto* c2 = node(f, "Cast", {sz->name}, fresh(y->name + "_sizes"), L + "/sizes");
    attr_i(c2, "to", onnx::TensorProto::INT64);
    starts = c1->output(0);
    const std::string sizes = c2->output(0);
    const std::string sum = node(f, "Add", {starts, sizes}, fresh(y->name + "_ends"), L + "/ends")->output(0);
    const std::string all =
        node(f, "Equal", {sizes, cst_i64s({-1})}, fresh(y->name + "_to_end"), L + "/to_end")->output(0);
    const std::string shp = node(f, "Shape", {x->name}, fresh(y->name + "_shape"), L + "/shape")->output(0);
    ends = node(f, "Where", {all, shp, sum}, fresh(y->name + "_ends_all"), L + "/ends_all")->output(0);
  }
  node(f, "Slice", {x->name, starts, ends}, y->name, L);
  y->info.scale = x->info.scale;  // the executor's SLICE keeps the input's quantization
  y->info.zp = x->info.zp;
  written(y);
}

}  // namespace condlint::xport::nnapi_export
