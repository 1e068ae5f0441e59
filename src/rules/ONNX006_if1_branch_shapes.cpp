// ONNX006 if1-branch-shapes: If-1 (opset < 11) requires both branches to give the same shape for each output.
// Decided from the Conditional view's branch outputs, where both shapes are known.
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX006 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  if (!m.onnx || m.onnx->if_since_version != 1) return;
  for (const auto& c : m.conditionals) {
    const auto& t = c.branch[0].outputs;
    const auto& e = c.branch[1].outputs;
    for (size_t k = 0; k < t.size() && k < e.size(); ++k) {
      const Shape& a = t[k].value.shape;
      const Shape& b = e[k].value.shape;
      if (a.rank_known && b.rank_known && !(a == b))
        r.report(c.loc, c.name + " output " + std::to_string(k) + ": the then branch gives " + a.str() +
                            ", the else branch gives " + b.str() + "; If-1 (opset " +
                            std::to_string(m.onnx->onnx_opset) + " < 11) requires the same shape from both branches");
    }
  }
}
}  // namespace condlint::rules::ONNX006

CONDLINT_RULE(ONNX006, "if1-branch-shapes", Level::Error, kONNX,
              "If-1 (opset < 11): the branches give different shapes for one output", check)
