// ONNX013 branch-output-type-unknown: a branch output's type is neither declared nor inferable.
// The ONNX loader finds these while it walks the scopes (see loaders/onnx_loader.cpp).
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX013 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  condlint::report_onnx_problems(m, r, condlint::OnnxProblem::Kind::OutputTypeUnknown);
}
}  // namespace condlint::rules::ONNX013

CONDLINT_RULE(ONNX013, "branch-output-type-unknown", Level::Warning, kONNX,
              "A branch output's type is neither declared nor inferable", check)
