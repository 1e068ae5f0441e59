// ONNX006 if1-branch-shapes: if-1 (opset < 11): the branches give different shapes for one output.
// The ONNX loader finds these while it walks the scopes (see loaders/onnx_loader.cpp).
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX006 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  condlint::report_onnx_problems(m, r, condlint::OnnxProblem::Kind::If1Shapes);
}
}  // namespace condlint::rules::ONNX006

CONDLINT_RULE(ONNX006, "if1-branch-shapes", Level::Error, kONNX,
              "If-1 (opset < 11): the branches give different shapes for one output", check)
