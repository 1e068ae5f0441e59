// ONNX011 shadows-outer-name: a subgraph input, initializer or node output reuses the name of an outer value.
// The ONNX loader finds these while it walks the scopes (see loaders/onnx_loader.cpp).
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX011 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  condlint::report_onnx_problems(m, r, condlint::OnnxProblem::Kind::ShadowsOuter);
}
}  // namespace condlint::rules::ONNX011

CONDLINT_RULE(ONNX011, "shadows-outer-name", Level::Error, kONNX,
              "A subgraph input, initializer or node output reuses the name of an outer value", check)
