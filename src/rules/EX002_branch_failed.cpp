// EX002 branch-failed: A pinned If branch fails to run or gives outputs that contradict the If's declared types or
// shapes (lint --exec). Reads Model::exec, which only `condlint lint --exec` fills (exec/lint_exec.hpp); silent
// otherwise.
#include "rules/engine.hpp"

namespace condlint::rules::EX002 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  if (!m.exec) return;
  for (const auto& f : m.exec->findings)
    if (f.kind == ExecFinding::Kind::BranchFailed) r.report(f.loc, f.message);
}
}  // namespace condlint::rules::EX002

CONDLINT_RULE(
    EX002, "branch-failed", Level::Error, kAllFormats,
    "A pinned If branch fails to run or gives outputs that contradict the If's declared types or shapes (lint --exec)",
    check)
