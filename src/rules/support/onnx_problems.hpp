// Shared by the ONNX rules: the ONNX loader records problems by kind; each rule reports its own kind.
#pragma once

#include "model/onnx_data.hpp"
#include "rules/engine.hpp"

namespace condlint {

void report_onnx_problems(const Model& m, Reporter& r, OnnxProblem::Kind kind);

}  // namespace condlint
