// ONNX017 checker-rejects: onnx's checker (check_model) rejects the model, a graph or a node, for a reason no other
// ONNX rule reports there. The ONNX loader runs the checker's checks as it walks the graphs (loaders/onnx_loader.cpp).
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX017 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  condlint::report_onnx_problems(m, r, condlint::OnnxProblem::Kind::CheckerRejects);
}
}  // namespace condlint::rules::ONNX017

CONDLINT_RULE(ONNX017, "checker-rejects", Level::Error, kONNX,
              "onnx's checker rejects the model, a graph or a node (a reason no other rule reports)", check)
