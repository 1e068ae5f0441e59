// C008 input-type-mismatch: an outer value bound into a branch has another type than the branch parameter.
#include "rules/engine.hpp"

namespace condlint::rules::C008 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& c : m.conditionals) {
    for (const auto& br : c.branch) {
      for (const auto& ib : br.inputs) {
        if (!ib.outer.present || !ib.inner.present || same_type(ib.outer.type, ib.inner.type)) continue;
        std::string msg = c.name + " " + br.name + " branch: input " + std::to_string(ib.outer_index) + " is " +
                          ib.outer.type.str() + " (" + ib.outer.label + ") but is bound to " + ib.inner.label +
                          " of type " + ib.inner.type.str();
        if (m.format == Format::IR) msg += "; OpenVINO silently overwrites the Parameter's type";
        r.report(ib.loc.line ? ib.loc : c.loc, msg);
      }
    }
  }
}
}  // namespace condlint::rules::C008

CONDLINT_RULE(C008, "input-type-mismatch", Level::Error, kAllFormats,
              "An outer value's type differs from the branch parameter it is bound to", check)
