// C003 condition-shape: the condition can never hold exactly one element in an accepted shape.
#include "rules/support/condition_shape.hpp"
#include "rules/engine.hpp"

namespace condlint::rules::C003 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& c : m.conditionals) {
    if (!c.has_condition) continue;
    const auto verdict = classify_condition_shape(m.format, c.condition);
    if (verdict.kind != ConditionShape::Wrong) continue;
    r.report(c.condition.loc.line ? c.condition.loc : c.loc, c.name + ": the condition has shape " +
                                                                 c.condition.shape.str() + " (" + c.condition.label +
                                                                 "); " + verdict.why);
  }
}
}  // namespace condlint::rules::C003

CONDLINT_RULE(C003, "condition-shape", Level::Error, kAllFormats,
              "The condition's static shape does not hold exactly one element", check)
