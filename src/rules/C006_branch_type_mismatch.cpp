// C006 branch-type-mismatch: the two branches give different types for one output.
#include "rules/support/tflite_util.hpp"
#include "rules/engine.hpp"

namespace condlint::rules::C006 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& c : m.conditionals) {
    const auto& t = c.branch[0].outputs;
    const auto& e = c.branch[1].outputs;
    for (size_t i = 0; i < t.size() && i < e.size(); ++i) {
      const ValueDesc& a = t[i].value;
      const ValueDesc& b = e[i].value;
      if (!a.present || !b.present || same_type(a.type, b.type)) continue;
      std::string msg = c.name + " output " + std::to_string(t[i].output_index) + ": the then branch gives " +
                        a.type.str() + " (" + a.label + "), the else branch gives " + b.type.str() + " (" + b.label +
                        ")";
      // The TFLite interpreter runs it (the output's type follows the branch): a warning, by that evidence.
      if (m.format == Format::TFLITE) r.report_at(Level::Warning, c.loc, msg + "; " + tflr::kTypeNotChecked);
      else r.report(c.loc, msg);
    }
  }
}
}  // namespace condlint::rules::C006

CONDLINT_RULE(C006, "branch-type-mismatch", Level::Error, kAllFormats,
              "The then and else branches give different types for one output", check)
