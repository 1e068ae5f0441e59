// NNAPI execution of *.nnapi.json models (docs/nnapi-json.md) against their `examples`, both IF branches. Runs the
// model the NNAPI loader read (its NnapiData: subgraphs, operand values, Blobs, examples), so `run` reads exactly
// what `lint` reads, and refuses what lint finds unreadable (rules/readability).
#pragma once

#include <filesystem>

#include "exec/interpreter.hpp"
#include "exec/runner.hpp"

namespace condlint::exec {

// Runs every example of the model (RunConfig.data_dirs, save_dir are ignored; NNAPI golden data lives in
// the model's `examples`). WHILE loops stop at cfg.limits.timeout_ms (use 2000 for Android's default).
ModelResult run_nnapi_model(const Model& model, const std::filesystem::path& path, const RunConfig& cfg);

// One execution of the model on given inputs (by main input index, in the operands' storage types) with IF
// pins (executor paths, as `run --pin`). Outputs are the stored values of the main outputs.
struct NnapiRun {
  bool ok = false;
  std::string error;
  std::vector<Value> outputs;
  Trace trace;
};
NnapiRun run_nnapi_once(const Model& model, const std::vector<Value>& inputs, const std::map<std::string, bool>& pins,
                        const Limits& limits);

}  // namespace condlint::exec
