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

namespace condlint::diff {

struct LiveVerdict {
  bool checked = false;  // the runtime gave a verdict on this model
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
};

// The runtimes that have a live check ("onnxruntime", "openvino").
bool has_live_check(const std::string& runtime);

// Loads every file into `runtime` (one process per batch; never throws). `available` false, with the reason, when
// the runtime or its adapter is not installed.
LiveCheck check_live(const std::string& runtime, const std::vector<std::string>& files, const LiveLimits& limits = {});

}  // namespace condlint::diff
