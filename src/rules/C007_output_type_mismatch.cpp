// C007 output-type-mismatch: a branch gives another type than the conditional declares for that output.
#include "rules/engine.hpp"

namespace condlint::rules::C007 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& c : m.conditionals) {
    for (const auto& br : c.branch) {
      for (const auto& ob : br.outputs) {
        if (ob.output_index < 0 || ob.output_index >= static_cast<int>(c.outputs.size())) continue;
        const ValueDesc& declared = c.outputs[ob.output_index];
        if (!ob.value.present || !declared.present || same_type(declared.type, ob.value.type)) continue;
        r.report(declared.loc.line ? declared.loc : c.loc,
                 c.name + " output " + std::to_string(ob.output_index) + " is declared " + declared.type.str() +
                     " but the " + br.name + " branch gives " + ob.value.type.str() + " (" + ob.value.label + ")");
      }
    }
  }
}
}  // namespace condlint::rules::C007

CONDLINT_RULE(C007, "output-type-mismatch", Level::Error, kAllFormats,
              "A branch result's type differs from the conditional's declared output type", check)
