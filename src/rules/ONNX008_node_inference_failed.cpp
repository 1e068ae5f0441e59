// ONNX008 node-inference-failed: inside a branch, onnx's type and shape inference rejects a node.
// The ONNX loader finds these while it walks the scopes (see loaders/onnx_loader.cpp).
#include "rules/support/onnx_problems.hpp"

namespace {
void check(const condlint::Model& m, condlint::Reporter& r) {
  condlint::report_onnx_problems(m, r, condlint::OnnxProblem::Kind::InferenceFailed);
}
}  // namespace

CONDLINT_RULE(ONNX008, "node-inference-failed", Level::Error, kONNX,
              "Inside a branch, onnx's type and shape inference rejects a node", check)
