// C012 branch-dead: the condition is the same for every input the model's declared types allow (it is computed
// from constants and from shapes condlint's sound inference proves, or it is an NNAPI constant), so one branch can
// never run. An NNAPI IF whose two branches name one subgraph has no dead code: silent there.
#include "rules/engine.hpp"
#include "rules/support/dead_code.hpp"

namespace condlint::rules::C012 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const DeadCode never_runs(m);
  for (const auto& c : m.conditionals) {
    const ConditionProvenance& p = c.provenance;
    if (!p.traced || p.decided < 0 || c.branch[0].graph < 0 || c.branch[1].graph < 0) continue;
    // Inside a branch that never runs, the outer finding already says all of it is code to remove.
    if (never_runs.contains(c.graph)) continue;
    if (c.branch[0].graph == c.branch[1].graph) continue;  // one subgraph for both: no branch of it is dead code
    const char* dead = p.decided == 1 ? "else" : "then";
    // A decision that rests on shapes holds for every input the declared types allow; one on constants for all.
    r.report(c.loc, "the " + std::string(dead) + " branch of " + c.name + " never runs: the condition " + p.text +
                        " is always " + (p.decided == 1 ? "true" : "false") + " (" + p.decided_why +
                        (p.on_shapes ? " for every input the declared types allow); an exporter's guard for shapes "
                                       "this model never has, or a branch to remove"
                                     : "); a branch to remove"));
  }
}
}  // namespace condlint::rules::C012

CONDLINT_RULE(C012, "branch-dead", Level::Note, kAllFormats,
              "One branch can never run: the condition is decided by constants and proven shapes", check)
