// ONNX007 declared-vs-inferred: inside a branch, a declared type or shape contradicts what its producing node computes.
// The ONNX loader finds these while it walks the scopes (see loaders/onnx_loader.cpp).
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX007 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  condlint::report_onnx_problems(m, r, condlint::OnnxProblem::Kind::DeclaredVsInferred);
}
}  // namespace condlint::rules::ONNX007

CONDLINT_RULE(ONNX007, "declared-vs-inferred", Level::Error, kONNX,
              "Inside a branch, a declared type or shape contradicts what its producing node computes", check)
