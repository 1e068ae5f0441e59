// C001 condition-missing: the conditional has no condition value.
#include "rules/engine.hpp"

namespace condlint::rules::C001 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& c : m.conditionals)
    if (!c.has_condition)
      r.report(c.loc, c.name + " has no condition: its first input is missing or not connected to any value");
}
}  // namespace condlint::rules::C001

CONDLINT_RULE(C001, "condition-missing", Level::Error, kAllFormats,
              "The conditional has no condition input, or it is not connected", check)
