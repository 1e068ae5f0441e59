// C007 output-type-mismatch: a branch gives another type than the conditional declares for that output.
#include "rules/support/tflite_util.hpp"
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
        const std::string msg = c.name + " output " + std::to_string(ob.output_index) + " is declared " +
                                declared.type.str() + " but the " + br.name + " branch gives " + ob.value.type.str() +
                                " (" + ob.value.label + ")";
        // The TFLite interpreter runs it (the output's type follows the branch): a warning, by that evidence.
        if (m.format == Format::TFLITE) r.report_at(Level::Warning, c.loc, msg + "; " + tflr::kTypeNotChecked);
        else r.report(declared.loc.line ? declared.loc : c.loc, msg);
      }
    }
  }
}
}  // namespace condlint::rules::C007

CONDLINT_RULE(C007, "output-type-mismatch", Level::Error, kAllFormats,
              "A branch result's type differs from the conditional's declared output type", check)
