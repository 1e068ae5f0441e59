// EX001 golden-mismatch: Running the model on the golden data beside it does not reproduce the expected outputs (lint
// --exec). Reads Model::exec, which only `condlint lint --exec` fills (exec/lint_exec.hpp); silent otherwise.
#include "rules/engine.hpp"

namespace condlint::rules::EX001 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  if (!m.exec) return;
  for (const auto& f : m.exec->findings)
    if (f.kind == ExecFinding::Kind::GoldenMismatch) r.report(f.loc, f.message);
}
}  // namespace condlint::rules::EX001

CONDLINT_RULE(EX001, "golden-mismatch", Level::Error, kAllFormats,
              "Running the model on the golden data beside it does not reproduce the expected outputs (lint --exec)",
              check)
