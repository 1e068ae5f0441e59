// EX004 synthesized-input-fails: inputs that condlint synthesized to select an If branch no data set takes make the
// run fail (lint --exec). The declared input types allow those inputs, but whether the model accepts them is a guess:
// a note. Reads Model::exec, which only `condlint lint --exec` fills (exec/lint_exec.hpp); silent otherwise.
#include "rules/engine.hpp"

namespace condlint::rules::EX004 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  if (!m.exec) return;
  for (const auto& f : m.exec->findings)
    if (f.kind == ExecFinding::Kind::SynthesizedFailed) r.report(f.loc, f.message);
}
}  // namespace condlint::rules::EX004

CONDLINT_RULE(EX004, "synthesized-input-fails", Level::Note, kAllFormats,
              "Inputs synthesized to select an If branch no data set takes make the run fail: a defect in the branch, "
              "or an assumption the declared input types do not state (lint --exec)",
              check)
