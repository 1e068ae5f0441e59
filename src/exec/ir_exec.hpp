// OpenVINO IR execution (*.xml + .bin) against golden data in the backend-test layout, both branches of every
// If. Reads the model with the lint loader (load_ir); reuses the ONNX kernels through thin adapters.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "exec/runner.hpp"
#include "model/types.hpp"

namespace condlint::exec {

// The executor's element type for an IR element type; nullopt for types it cannot compute (u1, i4, f8, ...).
std::optional<DT> dt_of(ElemType e);

// Every IR op type the executor runs (the element-wise tables of exec/ir_onnx_ops and the handlers), sorted.
std::vector<std::string> ir_op_types();

// Runs every test_data_set_* beside the model (or cfg.data_dirs): input_K feeds the K-th Parameter of the
// main graph (file order), output_K is compared with the K-th Result. Pins use the lint paths
// (main/if_cond, main/loop/body/inner_if).
ModelResult run_ir_model(const Model& model, const std::filesystem::path& path, const RunConfig& cfg);

}  // namespace condlint::exec
