// C004 condition-shape-unknown: the condition's shape is not known well enough to prove one element.
#include "rules/support/condition_shape.hpp"
#include "rules/engine.hpp"

namespace condlint::rules::C004 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& c : m.conditionals) {
    if (!c.has_condition) continue;
    const auto verdict = classify_condition_shape(m.format, c.condition);
    if (verdict.kind != ConditionShape::Unknown) continue;
    r.report(c.condition.loc.line ? c.condition.loc : c.loc,
             c.name + ": the condition's shape " + c.condition.shape.str() + " (" + c.condition.label +
                 ") is not static, so it cannot be checked to hold exactly one element");
  }
}
}  // namespace condlint::rules::C004

CONDLINT_RULE(C004, "condition-shape-unknown", Level::Note, kAllFormats,
              "The condition's shape is dynamic: one element cannot be proven", check)
