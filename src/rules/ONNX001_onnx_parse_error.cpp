// ONNX001 onnx-parse-error: the file is not a valid ONNX ModelProto (truncated, wrong bytes, no graph).
// The ONNX loader finds these while it walks the scopes (see loaders/onnx_loader.cpp).
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX001 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  condlint::report_onnx_problems(m, r, condlint::OnnxProblem::Kind::Parse);
}
}  // namespace condlint::rules::ONNX001

CONDLINT_RULE(ONNX001, "onnx-parse-error", Level::Error, kONNX,
              "The file is not a valid ONNX ModelProto (truncated, wrong bytes, no graph)", check)
