// ONNX014 external-data-outside: an external data location leaves the model's directory.
// The ONNX loader finds these while it walks the scopes (see loaders/onnx_loader.cpp).
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX014 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  condlint::report_onnx_problems(m, r, condlint::OnnxProblem::Kind::ExternalDataPath);
}
}  // namespace condlint::rules::ONNX014

CONDLINT_RULE(ONNX014, "external-data-outside", Level::Error, kONNX,
              "An external data location leaves the model's directory", check)
