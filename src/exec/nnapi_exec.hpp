// NNAPI execution of *.nnapi.json models (docs/nnapi-json.md) against their `examples`, both IF branches. Runs the
// model the NNAPI loader read (its NnapiData: subgraphs, operand values, Blobs, examples), so `run` reads exactly
// what `lint` reads, and refuses what lint finds unreadable (rules/readability).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>

#include "exec/interpreter.hpp"
#include "exec/runner.hpp"
#include "model/nnapi_data.hpp"

namespace condlint::exec {

// A table whose rows an AIDL operation name keys (a `name` member; model/nnapi_data defines the codes), looked up by
// operation code: the executor's kernels and the exporter's lowerings. A name that is not an operation has no code.
template <class Row>
class NnOperationTable {
 public:
  template <size_t N>
  explicit NnOperationTable(const Row (&rows)[N]) {
    for (const Row& row : rows)
      if (auto code = nn::parse_operation(row.name)) by_code_[*code] = &row;
  }
  // The row of an operation code; nullptr when the table has none.
  const Row* find(int32_t code) const {
    const auto it = by_code_.find(code);
    return it == by_code_.end() ? nullptr : it->second;
  }

 private:
  std::map<int32_t, const Row*> by_code_;
};

// An example's values (docs/nnapi-json.md) as a tensor of element type `dt` and shape `dims`, or the example's own
// dimensions where it gives them; fails (ExecError) when the values do not fill the shape exactly.
Tensor example_tensor(const NnValue& ex, DT dt, Dims dims);

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
