// ONNX002 nesting-too-deep: subgraphs are nested deeper than stock onnx and ONNX Runtime can read (31).
// The ONNX loader finds these while it walks the scopes (see loaders/onnx_loader.cpp).
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX002 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  condlint::report_onnx_problems(m, r, condlint::OnnxProblem::Kind::DeepNesting);
}
}  // namespace condlint::rules::ONNX002

CONDLINT_RULE(ONNX002, "nesting-too-deep", Level::Warning, kONNX,
              "Subgraphs are nested deeper than stock onnx and ONNX Runtime can read (31)", check)
