// ONNX012 outer-value-passthrough: a subgraph output is an outer value returned without a node.
// The ONNX loader finds these while it walks the scopes (see loaders/onnx_loader.cpp).
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX012 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  condlint::report_onnx_problems(m, r, condlint::OnnxProblem::Kind::OuterPassThrough);
}
}  // namespace condlint::rules::ONNX012

CONDLINT_RULE(ONNX012, "outer-value-passthrough", Level::Error, kONNX,
              "A subgraph output is an outer value returned without a node", check)
