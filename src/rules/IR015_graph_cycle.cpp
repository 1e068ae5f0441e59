// IR015 graph-cycle: the edges of one graph form a cycle (Kahn's algorithm, iterative).
#include <vector>

#include "rules/engine.hpp"

namespace {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& g : m.graphs) {
    const size_t n = g.nodes.size();
    // Users of each layer in one flat array (counted, then filled): no vector per layer.
    std::vector<int> indegree(n, 0), first(n + 1, 0), users;
    auto local = [&](const ValueRef& s) { return s.valid() && &m.graphs[s.graph] == &g; };
    for (size_t i = 0; i < n; ++i)
      for (const auto& s : g.nodes[i].sources)
        if (local(s)) {
          ++indegree[i];  // a self-loop counts too: it is a cycle of one
          if (s.node != static_cast<int>(i)) ++first[s.node + 1];
        }
    for (size_t i = 0; i < n; ++i) first[i + 1] += first[i];
    users.resize(first[n]);
    {
      std::vector<int> fill(first.begin(), first.end() - 1);
      for (size_t i = 0; i < n; ++i)
        for (const auto& s : g.nodes[i].sources)
          if (local(s) && s.node != static_cast<int>(i)) users[fill[s.node]++] = static_cast<int>(i);
    }
    std::vector<int> ready;
    for (size_t i = 0; i < n; ++i)
      if (indegree[i] == 0) ready.push_back(static_cast<int>(i));
    size_t done = 0;
    while (!ready.empty()) {
      const int v = ready.back();
      ready.pop_back();
      ++done;
      for (int k = first[v]; k < first[v + 1]; ++k)
        if (--indegree[users[k]] == 0) ready.push_back(users[k]);
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
