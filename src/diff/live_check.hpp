// Live target checks (`lint --target` where the runtime is installed): every model of a batch loaded into the real
// runtime in one child process — ONNX Runtime (npm, tools/ort/ort_run.js --check): a session with graph
// optimizations off, then on; OpenVINO (PyPI, tools/openvino/ov_check.py): read_model and compile_model on CPU.
// The child runs under the limits of docs/hardening.md ("Runtimes in child processes"): a model that crashes the
// runtime, hangs it or makes it grow past the memory limit is a refusal of that model, and the batch goes on with
// the models after it in a new process.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "diff/model_view.hpp"

namespace condlint::diff {

struct LiveVerdict {
  bool checked = false;  // the runtime gave a verdict on this model
  std::string not_given;  // why the model was not given to the runtime ("" : it was)
  bool refused = false;
  std::string stage;    // "optimizations off", "read_model", ...
  std::string message;  // the runtime's words (or what stopped its process)
};

struct LiveCheck {
  std::string runtime;                // "onnxruntime" | "openvino"
  std::string name;                   // "ONNX Runtime" | "OpenVINO"
  bool available = false;             // the runtime is installed and its adapter started
  std::string unavailable;            // why not (when !available)
  std::string version;                // the installed release ("1.30.0", "2026.4.1")
  std::vector<LiveVerdict> verdicts;  // by file
  int processes = 0;                  // child processes started (1 unless a model stopped one)
};

struct LiveLimits {
  int64_t per_model_ms = 60'000;                 // time one model may take to load
  int64_t base_memory_bytes = int64_t{4} << 30;  // resident memory of the runtime's process...
  int64_t memory_per_file_byte = 16;             // ...plus this many bytes per byte of the batch's largest model
  // What the adapter may write: its results file (a verdict line per model, each at most kMaxVerdictBytes) and any
  // other file.
  int64_t max_results_bytes = int64_t{16} << 20;
  int64_t max_file_bytes = int64_t{64} << 20;
};

// The longest verdict line read back from an adapter; a longer one is cut and the model's verdict says so.
inline constexpr size_t kMaxVerdictBytes = 64 * 1024;

// The runtimes that have a live check ("onnxruntime", "openvino").
bool has_live_check(const std::string& runtime);

// Loads every model into `runtime` (one process per batch; never throws), each through a view of its files
// (model_view.hpp) in a temporary folder that is also the child's working folder, removed on every way out. The
// child reads the list of models as a JSON array of strings. A plan that is refused is not given to the runtime:
// its verdict says why (not_given). `available` false, with the reason, when the runtime or its adapter is not
// installed.
LiveCheck check_live(const std::string& runtime, const std::vector<ViewPlan>& models, const LiveLimits& limits = {});

}  // namespace condlint::diff
