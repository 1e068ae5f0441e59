// `condlint diff`: runs one ONNX model on two runtimes with the same inputs, once per branch of every If
// (branch-pinned variants of the model), and compares the outputs. docs/diff.md describes the command and
// the directory protocol external runtimes speak.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "exec/random_inputs.hpp"
#include "exec/tensor.hpp"
#include "loaders/loader.hpp"
#include "onnx_graph/if_sites.hpp"

namespace condlint::diff {

namespace fs = std::filesystem;

// ---- runtimes -------------------------------------------------------------------------------------------

// One execution: a model file (a variant), a directory with input_K.pb, a directory for output_K.pb.
struct Job {
  const onnx::ModelProto* model = nullptr;  // the variant, for in-process runtimes
  const std::vector<exec::Value>* inputs = nullptr;
  fs::path model_file, input_dir, output_dir;
  // An OpenVINO IR the variant was exported from, and the variant's pins by the IR's If paths: what a runtime that
  // reads IR itself (openvino) runs instead of the export.
  fs::path source_model;
  std::map<std::string, bool> source_pins;
  // That IR as the front door read it: what the reference executor runs (with source_pins) instead of the export.
  const Model* source_loaded = nullptr;
  // The outputs' names in order, what is read back of every runtime's outputs (an IR's Results); `model`'s graph
  // outputs when null.
  const std::vector<std::string>* output_names = nullptr;
  // Why the job has no ONNX model (`model_file` empty: an IR the exporter cannot write as ONNX): what a runtime
  // that reads ONNX only says instead of running it.
  std::string no_onnx;
};

struct JobOutcome {
  bool ok = false;
  std::string error;                                // why the runtime failed (when !ok)
  std::vector<std::optional<exec::Value>> outputs;  // by output index; empty optional: not returned
  std::vector<std::string> not_comparable;          // by output index: why the runtime could not return it
  std::map<std::string, bool> took;                 // ref only: If path -> the branch the run took (when one)
  double ms = 0;
};

class Runtime {
 public:
  virtual ~Runtime() = default;
  const std::string& name() const { return name_; }
  // Runs every job (a runtime may batch them into one process). Never throws.
  virtual std::vector<JobOutcome> run(const std::vector<Job>& jobs) = 0;

 protected:
  std::string name_;
};

struct RuntimeOptions {
  int64_t timeout_ms = 60'000;  // one run
  exec::Limits limits;          // ref; limits.deadline (--timeout) applies to every runtime
};

// "ref", "onnxruntime" (alias "ort"), "openvino" (alias "ov"), or "cmd:TEMPLATE". Returns null and sets `error` on a
// bad spec or when the ONNX Runtime adapter cannot be found.
std::unique_ptr<Runtime> make_runtime(const std::string& spec, const RuntimeOptions& o, std::string& error);

// The ONNX Runtime adapter (tools/ort/ort_run.js): $CONDLINT_ORT_ADAPTER, else the source tree the binary was
// built from, else beside the executable (../tools/ort, ../share/condlint/ort). "" when none exists.
fs::path find_ort_adapter();
// Node: $CONDLINT_NODE, else `node` on PATH. "" when absent.
std::string find_node();
// A file of tools/ (`rel`: "openvino/ov_run.py"): in the source tree the binary was built from, else beside the
// executable (../tools, ../share/condlint). "" when none exists.
fs::path find_tool(const fs::path& rel);
// The Python with OpenVINO and onnx (tools/venv, PyPI): $CONDLINT_PYTHON, else tools/venv/bin/python. "" when
// neither is executable.
fs::path find_python();

// ---- diff -----------------------------------------------------------------------------------------------

struct DiffConfig {
  std::vector<fs::path> data_dirs;  // empty and random.count == 0: the test_data_set_* beside the model
  exec::RandomInputs random;        // --random N, --seed, --range, --input-shapes
  bool both_branches = true;
  std::optional<double> atol, rtol;
  std::map<std::string, std::pair<double, double>> tolerances;  // --tolerance OUTPUT=ATOL,RTOL
  int max_variants = 256;
  fs::path work_dir;  // where variants, inputs and outputs go ("" : a fresh temp dir, removed afterwards)
  bool keep = false;  // keep the work dir
  // --save DIR: each input set's run of the model as given (data, random, synthesized), as a data set for review:
  // DIR/test_data_set_N/input_K.pb, output_K.pb (the first runtime's outputs), runtime_R/output_K.pb (each
  // runtime's) and runtimes.txt; with several models, DIR/<index>_<model stem>/...
  fs::path save_dir;
  exec::Deadline deadline;  // --timeout: the whole command's (the runtimes get it in RuntimeOptions::limits)
};

struct OutputDiff {
  std::string name;
  enum class Status { Agree, Diverge, NotComparable } status = Status::Agree;
  std::string detail;  // divergence reason or why not comparable
  double max_abs = 0, max_rel = 0;
  std::string tolerance;
  std::string first_index;
  std::string value_a, value_b;  // at first_index
  int64_t mismatches = 0;
  size_t runtime_b = 1;  // the runtime compared with the first (DiffResult::runtimes), whose values value_b holds
};

struct CaseDiff {
  std::map<std::string, bool> pins;  // empty: the model as given (branches the data takes)
  std::map<std::string, bool> took;  // the model as given: the branches ref saw the data take
  std::string data_set;
  enum class Status {
    Agree,
    Diverge,
    Failed,
    NotComparable
  } status = Status::Agree;  // NotComparable: no output could be
  std::string message;
  std::vector<std::string> runtime_errors;  // per runtime, "" when it ran
  std::vector<double> ms;
  std::vector<OutputDiff> outputs;
  std::string saved_to;  // --save: the data set written
};

struct ModelDiff {
  std::string model;
  std::string error;             // the model or its inputs could not be prepared (usage/IO: exit 2)
  std::vector<std::string> ifs;  // every If path found
  std::vector<std::string> notes;
  std::vector<CaseDiff> cases;
  int agree = 0, diverge = 0, failed = 0, not_comparable = 0;  // runs (cases) by status
  int not_comparable_outputs = 0;
};

struct DiffResult {
  std::vector<std::string> runtimes;
  std::vector<ModelDiff> models;
  bool usage_error() const;
  bool all_agree() const;
};

// One model to diff: its path as given and what open_model made of it (with keep_for_exec and lint's readability
// verdict); diff never opens a model file itself.
struct DiffModel {
  fs::path path;
  const LoadResult* opened = nullptr;
};

// Diffs each model; jobs of all models are handed to each runtime at once (one Node process for ORT).
DiffResult run_diff(const std::vector<DiffModel>& models, const std::vector<Runtime*>& runtimes, const DiffConfig& cfg);

// ---- the If sites and pins of onnx_graph/, which diff runs per branch (named here for diff.cpp and its tests) ----

using onnx_graph::branch_variants;
using onnx_graph::find_ifs;
using onnx_graph::IfSite;
using onnx_graph::pin_model;
using onnx_graph::pins_label;
std::string format_number(double v);  // 9 significant digits, as the diff reports print errors and values

}  // namespace condlint::diff
