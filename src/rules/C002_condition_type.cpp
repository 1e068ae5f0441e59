// C002 condition-type: the condition is not boolean.
#include "rules/engine.hpp"

namespace condlint::rules::C002 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& c : m.conditionals) {
    if (!c.has_condition) continue;
    const TypeDesc& t = c.condition.type;
    if (t.kind == TypeDesc::Kind::Unknown) continue;
    const bool is_bool_tensor = t.kind == TypeDesc::Kind::Tensor && t.elem == ElemType::Boolean;
    const bool unknown_elem = t.kind == TypeDesc::Kind::Tensor && !is_concrete(t.elem);
    if (is_bool_tensor || unknown_elem) continue;
    r.report(c.condition.loc.line ? c.condition.loc : c.loc,
             c.name + ": the condition is " + t.str() + " (" + c.condition.label + "); it must be a boolean tensor");
  }
}
}  // namespace condlint::rules::C002

CONDLINT_RULE(C002, "condition-type", Level::Error, kAllFormats, "The condition's element type is not boolean", check)
