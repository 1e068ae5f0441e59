// C011 branch-shape-differs: the branches give different shapes for one output (legal, but not portable).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

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
    // One finding per If, naming each output whose shapes differ: an If that adapts a whole state gives one
    // difference per output, and they have one cause.
    std::vector<std::string> differ;
    std::vector<int> indices;
    for (size_t i = 0; i < t.size() && i < e.size(); ++i) {
      if (!t[i].value.present || !e[i].value.present) continue;
      const Shape a = t[i].value.comparable_shape(), b = e[i].value.comparable_shape();
      if (!a.rank_known || !b.rank_known || a == b) continue;
      if (m.format == Format::IR && if_output_of_dynamic_rank(a, b)) continue;  // IR021 warns of it
      // What flows on is what both can give (by OpenVINO's If-8 rule for IR, else merge_branches): say it, so the reader sees what later checks assume.
      const Shape both = m.format == Format::IR ? merge_branches_openvino(a, b) : merge_branches(a, b);
      differ.push_back("the then branch gives " + a.str() + ", the else branch gives " + b.str() +
                       ", so the output is " + (both.rank_known ? both.str() : std::string("of unknown rank")) +
                       " downstream");
      indices.push_back(t[i].output_index);
    }
    if (differ.empty()) continue;
    const std::string tail =
        "; a runtime or compiler that plans static shapes must handle both (expected when one branch is a shape guard "
        "that adapts an input's rank)";
    // Outputs whose shapes differ alike are named together ("outputs 0 and 1: ..."); one output reads as before.
    std::vector<std::pair<std::string, std::vector<int>>> groups;
    for (size_t k = 0; k < differ.size(); ++k) {
      auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& x) { return x.first == differ[k]; });
      if (g == groups.end()) groups.push_back({differ[k], {indices[k]}});
      else g->second.push_back(indices[k]);
    }
    std::string msg = c.name;
    for (size_t k = 0; k < groups.size(); ++k) {
      const auto& ids = groups[k].second;
      msg += (k == 0 ? " output" : "; output") + std::string(ids.size() > 1 ? "s " : " ");
      for (size_t j = 0; j < ids.size(); ++j)
        msg += (j == 0 ? "" : j + 1 == ids.size() ? " and " : ", ") + std::to_string(ids[j]);
      std::string desc = groups[k].first;
      if (ids.size() > 1) desc.replace(desc.find(", so the output is "), 19, ", so each is ");
      msg += ": " + desc;
    }
    r.report(c.loc, msg + tail);
  }
}
}  // namespace condlint::rules::C011

CONDLINT_RULE(C011, "branch-shape-differs", Level::Note, kAllFormats,
              "The two branches give different shapes for one output", check)
