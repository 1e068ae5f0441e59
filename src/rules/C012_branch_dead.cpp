// C012 branch-dead: the condition is the same for every input the model's declared types allow (it is computed
// from constants and from shapes condlint's sound inference proves), so one branch can never run.
#include "rules/engine.hpp"

namespace condlint::rules::C012 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& c : m.conditionals) {
    const ConditionProvenance& p = c.provenance;
    if (!p.traced || p.decided < 0 || c.branch[0].graph < 0 || c.branch[1].graph < 0) continue;
    const char* dead = p.decided == 1 ? "else" : "then";
    r.report(c.loc, "the " + std::string(dead) + " branch of " + c.name + " never runs: the condition " + p.text +
                        " is always " + (p.decided == 1 ? "true" : "false") + " (" + p.decided_why +
                        " for every input the declared types allow); an exporter's guard for shapes this model "
                        "never has, or a branch to remove");
  }
}
}  // namespace condlint::rules::C012

CONDLINT_RULE(C012, "branch-dead", Level::Note, kAllFormats,
              "One branch can never run: the condition is decided by constants and proven shapes", check)
