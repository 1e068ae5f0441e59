// Inputs that select a branch no data set took: the second way `run`, `lint --exec` and `diff` cover a branch,
// after the data and before pinning. Candidates come from what the loader traced of each condition
// (ConditionProvenance): other values for a small input the condition reads (around the constants it compares
// with), other sizes for the dims the declared input types leave open when it tests shapes. Every candidate
// respects the declared types and is run by the reference executor; only a run that completes and takes a wanted
// branch counts, so nothing here is a guess.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "exec/branch_policy.hpp"
#include "exec/interpreter.hpp"
#include "exec/random_inputs.hpp"
#include "exec/tensor.hpp"

namespace onnx {
class ModelProto;
}

namespace condlint::exec {

using BranchKey = std::pair<std::string, bool>;  // If path as the executor spells it, branch (true: then)

struct SynthesizedSet {
  std::string what;  // "'mode' = 1", "dim 'n' = 1 (input 'x' [1,1])"
  std::vector<Value> inputs;
  std::set<BranchKey> reaches;  // wanted branches its run took
};

struct SynthesisResult {
  std::vector<SynthesizedSet> sets;  // each reaches a wanted branch no earlier set reached, and its run completed
  // A wanted branch a candidate selected whose run then failed: what was tried and the executor's message. Not a
  // failure of the model: the declared types allow the input, but the model may assume more than they say.
  std::map<BranchKey, std::string> failed;
  // The candidates behind `failed` (the first to select each such branch), with their inputs: a driver whose base
  // inputs are themselves drawn from the declared types (--random) runs them as failed cases.
  std::vector<SynthesizedSet> failed_sets;
  int runs = 0;  // candidates run
};

struct SynthesisOptions {
  Limits limits;
  int max_runs = 48;
  // No candidate starts once the search has taken this long: a model whose runs are slow (or made slow by a resized
  // input) is searched for a bounded time, whatever max_runs allows. A run in progress ends at its own limit.
  int64_t max_ms = 20'000;
  uint64_t seed = 0;
  // What the user fixed (--input-shapes, --range, the configuration's inputs:): the shape of an input named in
  // `fixed.shapes` is never changed (nor a symbolic dim it names), and a value set whole stays within its range.
  RandomInputs fixed;
};

// Runs the model unpinned on `inputs`, filling `trace` as far as it got; throws when the run fails.
using CandidateRun = std::function<void(const std::vector<Value>& inputs, Trace& trace)>;

// The body of a CandidateRun: `run()` runs the driver's executor, and `trace` takes what `trace_of()` says it ran
// as far as it got, also when `run` throws.
template <class Run, class TraceOf>
void run_keeping_trace(Trace& trace, Run run, TraceOf trace_of) {
  struct Keep {
    Trace& t;
    TraceOf& of;
    ~Keep() { t = of(); }
  } keep{trace, trace_of};
  run();
}

// Searches for inputs, starting from `base` (one data set's inputs, one per `decls` entry), that take the branches
// in `wanted`; `run` runs each candidate (the driver's executor).
SynthesisResult synthesize_inputs(const std::vector<InputDecl>& decls, const CandidateRun& run,
                                  const BranchPolicy& policy, const std::vector<Value>& base,
                                  const std::set<BranchKey>& wanted, const SynthesisOptions& opt);
// The same for an ONNX model, run by the ONNX interpreter.
SynthesisResult synthesize_inputs(const onnx::ModelProto& model, const BranchPolicy& policy,
                                  const std::vector<Value>& base, const std::set<BranchKey>& wanted,
                                  const SynthesisOptions& opt);
// An ONNX model's data inputs as InputDecls.
std::vector<InputDecl> input_decls(const onnx::ModelProto& model);

// The branches of the Ifs `seen` that `taken` lacks and `policy` does not prove dead: what synthesis looks for.
std::set<BranchKey> wanted_branches(const std::set<std::string>& seen, const std::set<BranchKey>& taken,
                                    const BranchPolicy& policy);

}  // namespace condlint::exec
