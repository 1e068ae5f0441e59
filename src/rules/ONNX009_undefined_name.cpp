// ONNX009 undefined-name: a node or graph output reads a name no enclosing scope defines before it.
// The ONNX loader finds these while it walks the scopes (see loaders/onnx_loader.cpp).
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX009 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  condlint::report_onnx_problems(m, r, condlint::OnnxProblem::Kind::UndefinedName);
}
}  // namespace condlint::rules::ONNX009

CONDLINT_RULE(ONNX009, "undefined-name", Level::Error, kONNX,
              "A node or graph output reads a name no enclosing scope defines before it", check)
