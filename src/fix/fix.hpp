// `condlint fix`: the fixes rules decide (rules/fix.hpp) applied to a model file, and proven before anything is
// written. The proof of a fixed model, each step against the original:
//   1. lint: no finding of a fixed one is left, and no finding at warning or above that the original did not have;
//   2. the reference executor: the original and the fixed model run on the same inputs (the original's golden data,
//      else one set of random inputs, seed 0) on every branch the runs reach or pinning reaches, and every output of
//      the fixed model equals the original's (recorded by the run of the original, compared with its tolerances);
//   3. the runtime that reads the format, where installed (OpenVINO's read_model and compile_model for an IR, ONNX
//      Runtime's sessions for ONNX; onnx's checker runs in step 1): a model it accepted stays accepted.
// A fixed model that fails a step is not written; the result says which step and why.
#pragma once

#include <string>
#include <vector>

#include "rules/engine.hpp"
#include "rules/fix.hpp"

namespace condlint::fix {

struct FixOptions {
  bool unsafe = false;             // --unsafe-fixes
  std::vector<std::string> rules;  // --rule: only fixes of these rules (IDs or prefixes); empty: all
  bool prove_runtime = true;       // step 3 (tests of the other steps turn it off)
};

struct Skipped {
  Finding finding;
  std::string why;  // "available with --unsafe-fixes", the fixer's reason
};

struct FixResult {
  std::string error;  // the model could not be fixed at all (unreadable, an I/O error): exit 2
  Format format = Format::IR;
  std::vector<Fix> applied;      // in file order
  std::vector<Skipped> skipped;  // fixable findings not fixed
  std::string original_bytes, fixed_bytes;
  std::vector<std::string> proof;  // the steps passed, worded for the report
  std::string proof_failed;        // the step that failed and why ("" : proven, or nothing to fix)
  // Findings of the fixed model that are fixable in turn (a fix can make another: a Result an IR009 fix unmaps):
  // a second `condlint fix` applies them.
  int fixable_after = 0;
  bool changed() const { return !applied.empty(); }
};

// Fixes `path` in memory and proves the fix; writes nothing.
FixResult fix_model(const std::string& path, const FixOptions& o);

// The applied fixes of an IR as a unified diff of the XML (a/PATH, b/PATH); for another format, one line per fix.
std::string diff_text(const std::string& path, const FixResult& r);

}  // namespace condlint::fix
