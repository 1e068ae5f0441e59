// ONNX010 duplicate-name: a value name is defined twice in one graph (SSA violation).
// The ONNX loader finds these while it walks the scopes (see loaders/onnx_loader.cpp).
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX010 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  condlint::report_onnx_problems(m, r, condlint::OnnxProblem::Kind::DuplicateName);
}
}  // namespace condlint::rules::ONNX010

CONDLINT_RULE(ONNX010, "duplicate-name", Level::Error, kONNX,
              "A value name is defined twice in one graph (SSA violation)", check)
