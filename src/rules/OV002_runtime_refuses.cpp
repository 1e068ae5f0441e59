// OV002 runtime-refuses: under `--target openvino...` with OpenVINO installed, the lint session read the model with
// OpenVINO (read_model) and compiled it for the CPU (compile_model), and OpenVINO refused. Reported at the node
// OpenVINO names, else at the model. What the installed release says, not a profile: OV001 judges the range.
#include "rules/support/live_refusals.hpp"

namespace condlint::rules::OV002 {

void check(const condlint::Model& m, condlint::Reporter& r) {
  condlint::live::report_refusals(m, r, "openvino", "OpenVINO");
}

}  // namespace condlint::rules::OV002

CONDLINT_RULE(OV002, "runtime-refuses", Level::Error, kONNX | kIR,
              "--target openvino with OpenVINO installed: the installed OpenVINO refuses to read or compile the model",
              check)
