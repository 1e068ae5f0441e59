// `condlint run`: a model, its golden data sets, both branches of every If, comparison and reports.
#pragma once

#include "exec/interpreter.hpp"

#include <filesystem>
#include <functional>
#include <set>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "exec/branch_policy.hpp"
#include "exec/onnx_io.hpp"
#include "exec/random_inputs.hpp"
#include "exec/synthesize.hpp"
#include "exec/tensor.hpp"

namespace condlint::exec {

struct RunConfig {
  std::vector<std::filesystem::path> data_dirs;  // empty: the test_data_set_* beside the model
  // --random N (ONNX and IR models): N more input sets, with no golden outputs (their outputs are checked against the
  // declared types only); with no data set and no --data, these alone.
  RandomInputs random;
  bool both_branches = true;
  std::map<std::string, bool> pins;  // --pin
  std::optional<double> atol, rtol;
  std::filesystem::path save_dir;  // --save
  // Also save a run whose only problems are declarations its values contradict (CaseResult::declarations_only):
  // what `condlint fix` records of a model whose declarations it repairs.
  bool save_declaration_mismatches = false;
  Limits limits;
  int max_runs_per_data_set = 256;
  // Which branches pinning may reach (from the loaded model's condition provenance); null: the ONNX and IR drivers
  // make it from the model they load, and the NNAPI driver pins every branch (NNAPI conditions are not traced: NNAPI
  // has no op that reads a shape, so none is a shape guard).
  std::shared_ptr<const BranchPolicy> policy;
};

// "" when `lint` can read the model, else why not (rules/readability.hpp): the verdict open_model recorded
// (Model::unreadable), or the rules asked now for a model opened without one. `run`, `lint --exec`, `diff` and
// `export` refuse what `lint` cannot read, so every command gives one verdict on a file.
std::string readability_of(const Model& model);

struct OutputResult {
  std::string name;
  bool compared = false;
  bool ok = true;
  std::string detail;  // mismatch reason or type problem
  double max_abs = 0, max_rel = 0;
  std::string first_index;
  std::string tolerance;
};

enum class CaseStatus { Passed, Mismatch, Failed, Unsupported };
const char* to_string(CaseStatus s);

struct CaseResult {
  std::string data_set;              // directory of the data set ("" when the model has no inputs and no data)
  std::map<std::string, bool> pins;  // pins in force for this run
  bool derived = false;              // a pinned run condlint added to reach the other branch
  std::string synthesized;           // a run on inputs condlint synthesized to select a branch (what they are)
  bool golden = false;               // outputs compared with golden data
  CaseStatus status = CaseStatus::Passed;
  std::string message;
  std::vector<OutputResult> outputs;
  std::vector<std::string> branch_problems;
  // The run computed every output and matched its golden data; it is not Passed only because values contradict
  // declarations (an If output's, a graph output's: branch_problems and the outputs' details say which).
  bool declarations_only = false;
  std::map<std::string, std::vector<bool>> if_branches;  // If path -> branches that ran
  double ms = 0;
  std::string saved_to;
};

// Why a branch that no run reached was not pinned either.
struct NotPinned {
  enum class Kind {
    Dead,             // the condition is decided (BranchPolicy): no input selects this branch
    ShapeGuard,       // the condition tests shapes: a pin would feed the branch shapes that cannot reach it
    SynthesisFailed,  // inputs that select it fail: a pin would force that state on inputs that do not select it
  } kind = Kind::ShapeGuard;
  std::string why;
};

struct ModelResult {
  std::string model;
  std::string error;  // the model itself could not be read (exit 2 for `run`, a failure for tests)
  std::vector<CaseResult> cases;
  int passed = 0, failed = 0, unsupported = 0;
  // Every If seen, with the branches run across all cases.
  std::map<std::string, std::vector<bool>> if_coverage;
  // Every If of the model (Model::full_path_of), seen or not: the coverage accounts for each, an If no run reached
  // by the branch around it that did not run.
  std::vector<std::string> all_ifs;
  // The Ifs of model-local functions (function:DOMAIN.NAME/...) that ran through a call, under the call's path: the
  // coverage lists them per call, not again as Ifs no run reached.
  std::set<std::string> reached_through_calls;
  // Branches not reached and not pinned, with why: If path -> branch -> reason.
  std::map<std::string, std::map<bool, NotPinned>> not_pinned;
  // Branches reached only by pinning (the data never took them): If path -> branches.
  std::map<std::string, std::set<bool>> pinned_only;
  // Branches that synthesized inputs selected but whose run failed, with what was tried and why: If path -> branch.
  std::map<std::string, std::map<bool, std::string>> synthesis_failed;
};

// A result for a model that cannot be run at all: `why` is its error.
ModelResult model_error(const std::filesystem::path& model, std::string why);
// An ONNX model open_model read from `path` with keep_for_exec: it runs the parsed protobuf the Model holds
// (OnnxData::proto; OnnxData::proto_error when there is none).
ModelResult run_model(const Model& model, const std::filesystem::path& path, const RunConfig& cfg);
// The executor's one entry: a model of any format open_model read (with keep_for_exec, so the file is parsed once),
// run by its format's driver (run_model, run_ir_model, run_nnapi_model), chosen by Model::format. What `run`,
// `lint --exec` and `diff`'s reference run.
ModelResult run_loaded(const Model& model, const std::filesystem::path& path, const RunConfig& cfg);

// Shared by the three drivers (ONNX here, IR in ir_exec.cpp, NNAPI in nnapi_exec.cpp):
using PinSet = std::map<std::string, bool>;
// --branches both: for every If the run `trace` reached, queues `pins` (a copy: `work` grows) plus that If pinned to
// each branch it has not been queued or run with yet (`done`), unless the data set `data_key` already runs that pin set
// (`covered`, may be null).
// A branch `policy` refuses (dead, or behind a shape guard) or `refused` names is not queued; its reason goes to
// `not_pinned`.
void queue_other_branches(const Trace& trace, PinSet pins, std::set<std::pair<std::string, bool>>& done,
                          const std::set<std::pair<std::string, PinSet>>* covered, const std::string& data_key,
                          std::vector<PinSet>& work, const BranchPolicy* policy = nullptr,
                          std::map<std::string, std::map<bool, NotPinned>>* not_pinned = nullptr,
                          const std::map<std::string, std::map<bool, std::string>>* refused = nullptr);
// Why a branch in `refused` (ModelResult::synthesis_failed) is not pinned: inputs that select it fail, and a pin
// would force the same state on inputs that do not select it.
inline constexpr const char* kNotPinnedSynthesisFailed =
    "not pinned: a pin would force that state on inputs that do not select it";
// `cr` as a case the command's deadline left unrun (cfg.limits.deadline passed): failed, "not run: the command's
// time limit (--timeout N s) was reached".
CaseResult not_run(CaseResult cr, const Limits& limits);
// Fills mr.all_ifs from the model's conditionals; a --pin (cfg.pins) that names none of them sets mr.error (the
// command's usage error, exit 2) to what no_if_at says. False when it did. A pin in the spelling of condlint 0.2
// (a '/' inside a node name written as it is, model/node_path.hpp) that names one If is re-keyed on its path.
bool record_all_ifs(const Model& model, RunConfig& cfg, ModelResult& mr);
// "no If at PATH; did you mean A or B?": the If paths of `ifs` closest to `path` (edit distance; ONNX exports name
// nodes with '/' in them, `main//model/decoder/If_1`, so a path that drops a '/' is one edit away).
std::string no_if_at(const std::string& path, const std::vector<std::string>& ifs);
// Fills passed / failed / unsupported from the cases and sorts the branch coverage.
void tally(ModelResult& mr);

// The parts of running one case that the ONNX and IR drivers share:
// the options of the case's run: the run's limits and `pins` (which `cr` records);
RunOptions case_options(CaseResult& cr, const RunConfig& cfg, const PinSet& pins);
// runs `body` (the model on the case's inputs), timing it and turning an error into the case's status;
void run_timed(CaseResult& cr, const std::function<void()>& body);
// records the branches the run took (a pin that matched no If that ran fails the case) and, when the run passed,
// judges the first `count` outputs, those the model declares: `declared(k, o)` names output k in `o` and says why
// it contradicts its declaration ("" when it does not); each is compared with its golden value, and a branch's own
// problem explains the output problem it causes.
void finish_case(CaseResult& cr, const RunConfig& cfg, const PinSet& pins, const Trace& trace,
                 const std::vector<Value>& outputs, const std::vector<std::optional<Value>>* golden, size_t count,
                 const std::function<std::string(size_t, OutputResult&)>& declared);

// The data sets a run goes through (shared by the ONNX and IR drivers): those of --data DIR..., else the
// test_data_set_* beside the model; without any, one empty set when the model takes no inputs (`synthetic`:
// run it once). `error` says why there is nothing to run.
struct DataPlan {
  std::vector<DataSet> sets;
  bool synthetic = false;
  std::vector<std::string> input_keys;               // per set: its input files' bytes, to group sets by inputs
  std::set<std::pair<std::string, PinSet>> covered;  // (inputs, pins) that a data set of its own runs
  std::string error;
  // A set's pins with --pin's over them.
  PinSet pins_of(size_t set, const RunConfig& cfg) const;
};
DataPlan plan_data_sets(const std::filesystem::path& model_path, const RunConfig& cfg, bool takes_inputs);

// Runs the pin sets of data set `s` (shared by the ONNX and IR drivers): its own pins first (compared with its
// golden outputs), then, with --branches both, each branch the runs before did not take for these inputs
// (`done_by_input`), at most --max-runs runs. Every case goes into `mr` with the If coverage it adds.
// run(pins, derived, trace, outputs) runs one case; save(pins, outputs) writes it for --save and says where.
// Runs go in phases over all data sets: first each set as its data takes it (kData), then, with --branches both,
// inputs synthesized to select the branches no data set took (kSynthesize, exec/synthesize.hpp: the driver runs
// them; run_pin_sets does nothing in this phase), then the pinned runs, only for branches that neither took
// (kPin): the least invasive way to cover a branch is data that takes it, and a pin is used only where nothing
// else reaches it (and BranchPolicy allows it).
using DoneByInput = std::map<std::string, std::set<std::pair<std::string, bool>>>;
struct PinState {
  enum Phase { kData = 0, kSynthesize = 1, kPin = 2 };
  int phase = kData;
  DoneByInput done_by_input;
  std::map<size_t, std::pair<PinSet, Trace>> natural_runs;  // per data set: its pins and what its run took
  std::set<std::pair<std::string, bool>> natural;           // (If path, branch) some data set or synthesized input took
  int phases(const RunConfig& cfg) const { return cfg.both_branches ? 3 : 1; }
};
void run_pin_sets(const DataPlan& plan, size_t s, const std::string& name, const RunConfig& cfg, ModelResult& mr,
                  PinState& state,
                  const std::function<CaseResult(const PinSet&, bool, Trace&, std::vector<Value>&)>& run,
                  const std::function<std::string(const PinSet&, const std::vector<Value>&)>& save);

// Input sets a driver holds in memory rather than in files (--random, synthesized), by their index among the plan's
// sets, and what each synthesized one is.
struct MemorySets {
  std::map<size_t, std::vector<Value>> inputs;
  std::map<size_t, std::string> synthesized;
};
// Phase kSynthesize, shared by the ONNX and IR drivers: inputs synthesized from `base` (the inputs of data set `s`)
// to select the branches no data set took (exec/synthesize.hpp; `candidate` runs a candidate in the driver's
// executor). Each kept set runs as a case (`run_one`, no golden data; `save` for --save) and joins `plan` as a data
// set of the pin phase, its inputs in `memory`; a candidate that fails is recorded in mr.synthesis_failed.
void synthesize_phase(const RunConfig& cfg, DataPlan& plan, size_t s, const std::string& name,
                      const std::vector<Value>& base, const std::vector<InputDecl>& decls,
                      const CandidateRun& candidate, ModelResult& mr, PinState& state, MemorySets& memory,
                      const std::function<CaseResult(const std::vector<Value>&, Trace&, std::vector<Value>&)>& run_one,
                      const std::function<std::string(const std::vector<Value>&, const std::vector<Value>&)>& save);
// --random: cfg.random.count input sets made from the declared inputs (ONNX or IR), appended to `plan` after the
// data sets, their values in `memory`; "" on success, else why they cannot be made.
std::string add_random_sets(const std::vector<InputDecl>& decls, const RunConfig& cfg, DataPlan& plan,
                            MemorySets& memory);
// Before the pin phase of a synthesized set: the pins the data sets ran are not run again for it.
void skip_pins_already_run(const DataPlan& plan, size_t s, const MemorySets& memory, PinState& state);

// --save: one case as `dir`/test_data_set_<index>: input_K.pb and output_K.pb (each value named name_of(output, K)),
// pins.json when it ran pinned. The directory it wrote, or "" when it cannot be made.
std::string save_case(const std::filesystem::path& dir, int index, const std::vector<Value>& inputs,
                      const std::vector<Value>& outputs, const PinSet& pins,
                      const std::function<std::string(bool output, size_t k)>& name_of);

// One data set's inputs and golden outputs as a driver read them.
struct LoadedSet {
  std::vector<Value> inputs;
  std::vector<std::optional<Value>> golden;  // per model output; empty where the set has none
  std::string error;                         // the set cannot be run: its one case says this
  CaseStatus status = CaseStatus::Failed;    // that case's status
};
// A format's executor as the shared driver (run_data_sets) uses it: the ONNX interpreter, the IR executor. The NNAPI
// driver runs examples, not data sets, in the same phases with the same pieces (nnapi_exec.cpp).
struct ExecBackend {
  size_t outputs = 0;                             // the model's outputs: golden slots of a set made in memory
  std::function<LoadedSet(const DataSet&)> load;  // a data set's files
  // Phase kSynthesize, from data set s (synthesize_phase with this executor).
  std::function<void(DataPlan&, size_t s, const std::string& name, const std::vector<Value>& inputs, ModelResult&,
                     PinState&, MemorySets&, int& save_index)>
      synthesize;
  // One case: the inputs with these pins, compared with `golden` when it is not null.
  std::function<CaseResult(const std::vector<Value>& inputs, const std::vector<std::optional<Value>>* golden,
                           const PinSet& pins, Trace& trace, std::vector<Value>& outputs)>
      run;
  // --save: writes a case as test_data_set_<index> and says where.
  std::function<std::string(int index, const std::vector<Value>& inputs, const std::vector<Value>& outputs,
                            const PinSet& pins)>
      save;
};
// The driver of the ONNX and IR executors: every set of `plan` (data sets, then those made in `memory`) through the
// phases of PinState, each case into `mr`, then tally(mr).
void run_data_sets(DataPlan& plan, MemorySets& memory, const RunConfig& cfg, ModelResult& mr, const ExecBackend& b);

// Judges one output of a run (shared by the ONNX, IR and NNAPI drivers): `o` arrives with its name and
// any declared-type problem already set; compares `actual` with `expected` when there is one, and
// turns the first failing output into the case's Mismatch.
void judge_output(CaseResult& cr, OutputResult o, const Value& actual, const Value* expected, const RunConfig& cfg);

// How each branch of each If was covered: "data" (a data set took it), "synthesized" (inputs condlint synthesized
// took it), "pinned" (only a pinned run reached it), "dead" (proven never to run), "guarded" (behind a shape guard:
// not pinned, nothing took it), "not covered" (inputs synthesized to select it fail: not pinned either, the reason
// says how), "not run", "not reached" (an If no run reached: the reason names the branch around it and how that
// branch was covered, dead or behind a shape guard).
struct BranchCoverage {
  std::string if_path;
  bool branch = true;
  std::string how;
  std::string why;  // for dead and guarded; what synthesis tried when it failed
};
std::vector<BranchCoverage> branch_coverage(const ModelResult& r);
// "If branches: 12 taken by the data, 2 by synthesized inputs, 3 reached by pinning, 4 dead, 5 behind shape guards
// (not pinned), 1 not covered (reason given), 0 not run"
std::string coverage_summary(const std::vector<BranchCoverage>& c);

}  // namespace condlint::exec
