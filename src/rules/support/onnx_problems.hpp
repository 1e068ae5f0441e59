// Shared by the ONNX rules: the ONNX loader records problems by kind; each rule reports its own kind.
#pragma once

#include "model/onnx_data.hpp"
#include "rules/engine.hpp"

namespace condlint {

void report_onnx_problems(const Model& m, Reporter& r, OnnxProblem::Kind kind);

// How ONNX messages name graph g: "the main graph", "then_branch of If 'x'".
std::string onnx_graph_label(const Model& m, int g);
// How ONNX messages name node n of graph g: "Transpose 'T_b'".
std::string onnx_node_label(const Model& m, int g, int n);
// How ONNX messages name the source of a value: "graph input", "initializer", "node output".
const char* onnx_source_name(OnnxRedefinition::Source s);

}  // namespace condlint
