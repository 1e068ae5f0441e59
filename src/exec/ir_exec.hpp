// OpenVINO IR execution (*.xml + .bin) against golden data in the backend-test layout, both branches of every
// If. Reads the model with the lint loader (load_ir); reuses the ONNX kernels through thin adapters.
#pragma once

#include <filesystem>
#include <map>
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

// The main graph's Parameters (file order) as the random and synthesized inputs see them, and its Results' names
// (file order: output K of a run, as OpenVINO orders the outputs of the model it reads).
std::vector<InputDecl> ir_input_decls(const Model& model);
std::vector<std::string> ir_output_names(const Model& model);

// One run of an IR the front door read, on `inputs` with `pins` (lint paths): what `diff`'s reference runs per job.
// Throws ExecError like the ONNX Interpreter's run; `trace` holds the branches the run took.
std::vector<Value> run_ir_once(const Model& model, const std::vector<Value>& inputs,
                               const std::map<std::string, bool>& pins, const Limits& limits, Trace& trace);

}  // namespace condlint::exec
