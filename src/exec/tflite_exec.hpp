// TFLite (LiteRT) execution (*.tflite) against golden data in the backend-test layout, both branches of every IF:
// the Model the TFLite loader read (its subgraphs and TfliteData: tensors, buffers read from the mapped file,
// operator options), run operator by operator in the file's order with the ONNX kernels, by a table of TFLite
// operators (tflite_exec.cpp). IF runs the subgraph its condition selects (or the one a pin names), WHILE runs its
// cond and body subgraphs until cond gives false.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "exec/runner.hpp"

namespace condlint::exec {

// Every TFLite operator the executor runs (BuiltinOperator names), sorted.
std::vector<std::string> tflite_op_types();
// Runs every test_data_set_* beside the model (or cfg.data_dirs): input_K feeds the K-th input of the main
// subgraph (its `inputs` list), output_K is compared with its K-th output. Pins use the lint paths
// (main/IF#0, main/WHILE#0/body/IF#3).
ModelResult run_tflite_model(const Model& model, const std::filesystem::path& path, const RunConfig& cfg);

}  // namespace condlint::exec
