// NNAPI execution of *.nnapi.json models (docs/nnapi-json.md) against their `examples`, both IF branches.
// Reads the JSON directly with nlohmann; independent of the lint loader.
#pragma once

#include <filesystem>

#include "exec/runner.hpp"

namespace condlint::exec {

// True when the file name ends in .nnapi.json.
bool is_nnapi_path(const std::filesystem::path& p);

// Runs every example of the model (RunConfig.data_dirs, save_dir are ignored; NNAPI golden data lives in
// the model's `examples`). WHILE loops stop at cfg.limits.timeout_ms (use 2000 for Android's default).
ModelResult run_nnapi_model(const std::filesystem::path& model, const RunConfig& cfg);

}  // namespace condlint::exec
