// ONNX003 if-node-form: an If node lacks a branch, has a non-graph or unknown attribute, or has other than one input.
// The ONNX loader finds these while it walks the scopes (see loaders/onnx_loader.cpp).
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX003 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  condlint::report_onnx_problems(m, r, condlint::OnnxProblem::Kind::IfForm);
}
}  // namespace condlint::rules::ONNX003

CONDLINT_RULE(ONNX003, "if-node-form", Level::Error, kONNX,
              "An If node lacks a branch, has a non-graph or unknown attribute, or has other than one input", check)
