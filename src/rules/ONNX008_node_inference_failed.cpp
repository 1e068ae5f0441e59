// ONNX008 node-inference-failed: onnx's type and shape inference (or its type constraints) rejects a node, in any
// graph. The ONNX loader finds these while it walks the scopes (see loaders/onnx_loader.cpp).
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX008 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  condlint::report_onnx_problems(m, r, condlint::OnnxProblem::Kind::InferenceFailed);
}
}  // namespace condlint::rules::ONNX008

CONDLINT_RULE(ONNX008, "node-inference-failed", Level::Error, kONNX,
              "onnx's type and shape inference (or its type constraints) rejects a node", check)
