// ONNX004 branch-has-inputs: an If branch graph declares formal inputs.
// The ONNX loader finds these while it walks the scopes (see loaders/onnx_loader.cpp).
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX004 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  condlint::report_onnx_problems(m, r, condlint::OnnxProblem::Kind::BranchInputs);
}
}  // namespace condlint::rules::ONNX004

CONDLINT_RULE(ONNX004, "branch-has-inputs", Level::Error, kONNX, "An If branch graph declares formal inputs", check)
