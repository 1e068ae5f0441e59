// C009 input-shape-mismatch: an outer value bound into a branch cannot have the branch parameter's shape.
#include "rules/engine.hpp"

namespace condlint::rules::C009 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& c : m.conditionals) {
    for (const auto& br : c.branch) {
      for (const auto& ib : br.inputs) {
        if (!ib.outer.present || !ib.inner.present) continue;
        const Shape outer = ib.outer.comparable_shape(), inner = ib.inner.comparable_shape();
        if (compatible(outer, inner)) continue;
        r.report(ib.loc.line ? ib.loc : c.loc, c.name + " " + br.name + " branch: input " +
                                                   std::to_string(ib.outer_index) + " has shape " + outer.str() + " (" +
                                                   ib.outer.label + ") but is bound to " + ib.inner.label +
                                                   " of shape " + inner.str());
      }
    }
  }
}
}  // namespace condlint::rules::C009

CONDLINT_RULE(C009, "input-shape-mismatch", Level::Error, kAllFormats,
              "An outer value's shape is incompatible with the branch parameter it is bound to", check)
