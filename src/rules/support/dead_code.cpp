#include "rules/support/dead_code.hpp"

#include <cstdint>

namespace condlint {

DeadCode::DeadCode(const Model& m) {
  const size_t n = m.graphs.size();
  dead_.assign(n, false);
  if (m.format == Format::NNAPI) return;
  std::vector<int8_t> state(n, -1);  // -1: not known yet; 0 live; 1 dead
  for (const auto& c : m.conditionals) {
    const ConditionProvenance& p = c.provenance;
    if (!p.traced || p.decided < 0 || p.decided > 1) continue;
    const int g = c.branch[p.decided].graph;  // decided 1: always true, the else branch (1) never runs; 0: the then
    if (g < 0 || static_cast<size_t>(g) >= n || c.branch[0].graph == c.branch[1].graph) continue;
    state[static_cast<size_t>(g)] = 1;
  }
  // Each graph takes the state of the nearest ancestor that has one (the root is live); every graph on the way is
  // settled at once, so the whole pass is linear however deep the nesting.
  std::vector<size_t> path;
  for (size_t g = 0; g < n; ++g) {
    path.clear();
    int x = static_cast<int>(g);
    while (x >= 0 && static_cast<size_t>(x) < n && state[static_cast<size_t>(x)] < 0 && path.size() <= n) {
      path.push_back(static_cast<size_t>(x));
      x = m.graphs[static_cast<size_t>(x)].parent_graph;
    }
    const int8_t s = x >= 0 && static_cast<size_t>(x) < n && path.size() <= n ? state[static_cast<size_t>(x)] : 0;
    for (size_t p : path) state[p] = s < 0 ? 0 : s;
  }
  for (size_t g = 0; g < n; ++g) dead_[g] = state[g] == 1;
}

}  // namespace condlint
