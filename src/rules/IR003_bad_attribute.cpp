// IR003 bad-attribute: an attribute or <dim> value that cannot be parsed.
#include "rules/engine.hpp"

namespace condlint::rules::IR003 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& p : m.ir->problems)
    if (p.kind == IrProblem::Kind::BadAttribute) r.report(p.loc, p.message);
}
}  // namespace condlint::rules::IR003

CONDLINT_RULE(IR003, "bad-attribute", Level::Error, kIR, "An attribute or <dim> value cannot be parsed", check)
