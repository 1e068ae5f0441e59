// C005 output-count-mismatch: the conditional and its two branches disagree on how many outputs there are.
#include "rules/engine.hpp"

namespace condlint::rules::C005 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& c : m.conditionals) {
    const size_t n = c.outputs.size();
    const bool have_then = c.branch[0].graph >= 0, have_else = c.branch[1].graph >= 0;
    const size_t t = c.branch[0].outputs.size(), e = c.branch[1].outputs.size();
    if (n == 0) {
      r.report(c.loc, c.name + " has no outputs; a conditional must produce at least one");
      continue;
    }
    if (have_then && have_else && t != e) {
      // What OpenVINO 2026.4.1 does with each (LiveTargets.OpenVinoReaderClaims): a then branch with more outputs
      // is refused at read_model; an else branch with outputs past the If's is read without a word, and compiling
      // the model then fails.
      std::string extra;
      if (t > e) extra = " (OpenVINO rejects a then branch with more outputs than the else branch)";
      else if (t >= n)
        extra =
            " (OpenVINO reads the else branch's extra outputs without a word, then fails to compile the model: "
            "\"node index is out of range\")";
      if (m.format != Format::IR) extra.clear();
      r.report(c.loc, c.name + ": the then branch gives " + std::to_string(t) + " outputs, the else branch " +
                          std::to_string(e) + "; the conditional has " + std::to_string(n) + extra);
      continue;
    }
    for (int b = 0; b < 2; ++b) {
      const auto& br = c.branch[b];
      if (br.graph < 0 || br.outputs.size() == n) continue;
      const size_t k = br.outputs.size();
      r.report(c.loc, c.name + " has " + std::to_string(n) + " outputs but the " + br.name + " branch gives " +
                          std::to_string(k) +
                          (k < n ? "; output " + std::to_string(k) + " has no value in that branch" : std::string()));
      break;
    }
  }
}
}  // namespace condlint::rules::C005

CONDLINT_RULE(C005, "output-count-mismatch", Level::Error, kAllFormats,
              "The conditional's output count differs from a branch's output count", check)
