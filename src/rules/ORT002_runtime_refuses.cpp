// ORT002 runtime-refuses: under `--target onnxruntime...` with ONNX Runtime installed, the lint session created a
// session for the model (graph optimizations off, then on) and ONNX Runtime refused. Reported at the node ONNX
// Runtime names, else at the model. What the installed release says, not a profile: ORT001 judges the range.
#include "rules/support/live_refusals.hpp"

namespace condlint::rules::ORT002 {

void check(const condlint::Model& m, condlint::Reporter& r) {
  condlint::live::report_refusals(m, r, "onnxruntime", "ONNX Runtime");
}

}  // namespace condlint::rules::ORT002

CONDLINT_RULE(ORT002, "runtime-refuses", Level::Error, kONNX,
              "--target onnxruntime with ONNX Runtime installed: the installed ONNX Runtime refuses to create a "
              "session for the model",
              check)
