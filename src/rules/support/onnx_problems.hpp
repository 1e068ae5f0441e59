// Shared by the ONNX rules: the ONNX loader records problems by kind; each rule reports its own kind.
#pragma once

#include "model/onnx_data.hpp"
#include "rules/engine.hpp"

namespace condlint {

void report_onnx_problems(const Model& m, Reporter& r, OnnxProblem::Kind kind);

// How ONNX messages name graph g: "the main graph", "then_branch of If 'x'".
std::string onnx_graph_label(const Model& m, int g);

}  // namespace condlint
