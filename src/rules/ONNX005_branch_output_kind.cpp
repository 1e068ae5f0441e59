// ONNX005 branch-output-kind: a branch output's type kind is not allowed by the If version of the model's opset.
// The ONNX loader finds these while it walks the scopes (see loaders/onnx_loader.cpp).
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX005 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  condlint::report_onnx_problems(m, r, condlint::OnnxProblem::Kind::BranchKind);
}
}  // namespace condlint::rules::ONNX005

CONDLINT_RULE(ONNX005, "branch-output-kind", Level::Error, kONNX,
              "A branch output's type kind is not allowed by the If version of the model's opset", check)
