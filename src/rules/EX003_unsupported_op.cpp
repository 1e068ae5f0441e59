// EX003 unsupported-op: A run on the golden data stopped at an op the reference executor does not implement (lint
// --exec). Reads Model::exec, which only `condlint lint --exec` fills (exec/lint_exec.hpp); silent otherwise.
#include "rules/engine.hpp"

namespace condlint::rules::EX003 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  if (!m.exec) return;
  for (const auto& f : m.exec->findings)
    if (f.kind == ExecFinding::Kind::Unsupported) r.report(f.loc, f.message);
}
}  // namespace condlint::rules::EX003

CONDLINT_RULE(EX003, "unsupported-op", Level::Note, kAllFormats,
              "A run on the golden data stopped at an op the reference executor does not implement (lint --exec)",
              check)
