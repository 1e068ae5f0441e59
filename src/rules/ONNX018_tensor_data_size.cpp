// ONNX018 tensor-data-size: an initializer's or a Constant's data cannot hold the elements its dims declare (raw_data
// length, typed-field count, negative dims, an element count past 2^64). The ONNX loader measures each stored tensor
// (loaders/onnx_util.cpp: measure_tensor, OnnxTensorSize) and never hands such data to onnx's inference.
#include <string>

#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX018 {

// "2 x 3 elements", "1 element (a scalar)", "1 x 2 x 3 x 4 x 5 x 6 x 7 x 8 x ... strings"
std::string declared(const OnnxTensorSize& t) {
  const std::string noun = t.strings ? "string" : "element";
  if (t.rank == 0) return "1 " + noun + " (a scalar)";
  std::string dims;
  for (size_t i = 0; i < t.dims.size(); ++i) dims += (i ? " x " : "") + std::to_string(t.dims[i]);
  if (t.rank > 8) dims += " x ...";
  return dims + " " + noun + "s";
}

// "1 value", "3 values"
std::string values(uint64_t n, const char* noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); }

// What the declared elements need: "need" after a plural, "needs" after one element.
const char* need(const OnnxTensorSize& t) { return t.rank == 0 ? " needs " : " need "; }

std::string why(const OnnxTensorSize& t) {
  if (t.negative_dim >= 0)
    return "dimension " + std::to_string(t.negative_dim) + " is negative (" + std::to_string(t.negative_value) + ")";
  if (t.count_overflows) return "its " + std::to_string(t.rank) + " dims multiply past 2^64 elements";
  if (t.raw) {
    if (t.count > UINT64_MAX / t.bits) return "its " + std::to_string(t.count) + " elements overflow a byte count";
    const std::string size =
        t.bits % 8 == 0 ? values(t.bits / 8, "byte") : std::to_string(t.bits) + " bits (packed, the last byte padded)";
    return "raw_data holds " + values(t.raw_bytes, "byte") + "; " + declared(t) + " of " + size + need(t) +
           std::to_string(t.raw_bytes_needed());
  }
  if (t.field_values == 0 && t.count > 0)
    return "it holds no values in " + t.field +
           (t.values_elsewhere ? " (they are in a field its type does not use)" : "") +
           " and no raw_data, but declares " + declared(t);
  return t.field + " holds " + values(static_cast<uint64_t>(t.field_values), "value") + "; " + declared(t) +
         (t.per_value > 1 ? " (packed " + std::to_string(t.per_value) + " to a value)" : std::string()) + need(t) +
         std::to_string(t.values_needed());
}

void check(const condlint::Model& m, condlint::Reporter& r) {
  if (!m.onnx) return;
  for (const OnnxTensorSize& t : m.onnx->tensor_sizes) {
    const std::string owner = t.initializer.empty() && t.loc.node_index >= 0
                                  ? onnx_node_label(m, t.loc.graph, t.loc.node_index) + " value"
                                  : "initializer '" + t.initializer + "'";
    r.report(t.loc, owner + " in " + onnx_graph_label(m, t.loc.graph) + ": " + why(t));
  }
}

}  // namespace condlint::rules::ONNX018

CONDLINT_RULE(ONNX018, "tensor-data-size", Level::Error, kONNX,
              "A tensor's data cannot hold the elements its dims declare", check)
