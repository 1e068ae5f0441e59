// IR015 graph-cycle: the edges of one graph form a cycle (Kahn's algorithm, iterative).
#include <vector>

#include "rules/engine.hpp"

namespace {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& g : m.graphs) {
    const size_t n = g.nodes.size();
    std::vector<int> indegree(n, 0);
    std::vector<std::vector<int>> users(n);
    for (size_t i = 0; i < n; ++i)
      for (const auto& s : g.nodes[i].sources)
        if (s.valid() && &m.graphs[s.graph] == &g && s.node != static_cast<int>(i)) {
          users[s.node].push_back(static_cast<int>(i));
          ++indegree[i];
        } else if (s.valid() && s.node == static_cast<int>(i) && &m.graphs[s.graph] == &g) {
          ++indegree[i];  // a self-loop is a cycle of one
        }
    std::vector<int> ready;
    for (size_t i = 0; i < n; ++i)
      if (indegree[i] == 0) ready.push_back(static_cast<int>(i));
    size_t done = 0;
    while (!ready.empty()) {
      const int v = ready.back();
      ready.pop_back();
      ++done;
      for (int u : users[v])
        if (--indegree[u] == 0) ready.push_back(u);
    }
    if (done == n) continue;
    // Report the first layer (in file order) left on a cycle.
    for (size_t i = 0; i < n; ++i)
      if (indegree[i] > 0) {
        r.report(g.nodes[i].loc, std::to_string(n - done) + " layers of this graph, " + g.nodes[i].op + " '" +
                                     g.nodes[i].display() + "' among them, lie on or behind a cycle of edges");
        break;
      }
  }
}
}  // namespace

CONDLINT_RULE(IR015, "graph-cycle", Level::Error, kIR, "The edges of one graph form a cycle", check)
