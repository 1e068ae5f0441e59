// C011 branch-shape-differs: the branches give different shapes for one output (legal, but not portable).
#include "rules/engine.hpp"
#include "rules/support/dead_code.hpp"

namespace condlint::rules::C011 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const DeadCode never_runs(m);
  for (const auto& c : m.conditionals) {
    if (c.provenance.decided >= 0) continue;  // one branch never runs (C012): its shape is never given
    // In a branch that never runs (C012 names it), neither shape is ever given.
    if (never_runs.contains(c.graph)) continue;
    const auto& t = c.branch[0].outputs;
    const auto& e = c.branch[1].outputs;
    for (size_t i = 0; i < t.size() && i < e.size(); ++i) {
      if (!t[i].value.present || !e[i].value.present) continue;
      const Shape a = t[i].value.comparable_shape(), b = e[i].value.comparable_shape();
      if (!a.rank_known || !b.rank_known || a == b) continue;
      // What flows on is what both can give (merge_branches): say it, so the reader sees what later checks assume.
      const Shape both = merge_branches(a, b);
      r.report(c.loc, c.name + " output " + std::to_string(t[i].output_index) + ": the then branch gives " + a.str() +
                          ", the else branch gives " + b.str() + ", so the output is " +
                          (both.rank_known ? both.str() : std::string("of unknown rank")) +
                          " downstream; a runtime or compiler that plans static shapes must handle both (expected "
                          "when one branch is a shape guard that adapts an input's rank)");
    }
  }
}
}  // namespace condlint::rules::C011

CONDLINT_RULE(C011, "branch-shape-differs", Level::Note, kAllFormats,
              "The two branches give different shapes for one output", check)
