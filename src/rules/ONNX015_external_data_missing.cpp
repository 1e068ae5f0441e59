// ONNX015 external-data-missing: an external data file is missing or shorter than offset + length.
// The ONNX loader finds these while it walks the scopes (see loaders/onnx_loader.cpp).
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX015 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  condlint::report_onnx_problems(m, r, condlint::OnnxProblem::Kind::ExternalDataMissing);
}
}  // namespace condlint::rules::ONNX015

CONDLINT_RULE(ONNX015, "external-data-missing", Level::Warning, kONNX,
              "An external data file is missing or shorter than offset + length", check)
