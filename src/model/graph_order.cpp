#include "model/graph_order.hpp"

#include <functional>
#include <queue>

namespace condlint {

std::vector<int> topological_order(const Model& m, int g, bool self_loop_blocks) {
  const auto& nodes = m.graphs[static_cast<size_t>(g)].nodes;
  const int n = static_cast<int>(nodes.size());
  // Users of each node in one flat array (counted, then filled): no vector per node.
  std::vector<int> pending(static_cast<size_t>(n), 0), first(static_cast<size_t>(n) + 1, 0), users;
  auto local = [&](const ValueRef& s) { return s.valid() && s.graph == g && s.node < n; };
  for (int k = 0; k < n; ++k)
    for (const auto& s : nodes[k].sources) {
      if (!local(s)) continue;
      if (s.node == k) {
        if (self_loop_blocks) ++pending[k];
        continue;
      }
      ++pending[k];
      ++first[s.node + 1];
    }
  for (int k = 0; k < n; ++k) first[k + 1] += first[k];
  users.resize(static_cast<size_t>(first[n]));
  {
    std::vector<int> fill(first.begin(), first.end() - 1);
    for (int k = 0; k < n; ++k)
      for (const auto& s : nodes[k].sources)
        if (local(s) && s.node != k) users[fill[s.node]++] = k;
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int k = 0; k < n; ++k)
    if (!pending[k]) ready.push(k);
  std::vector<int> order;
  order.reserve(static_cast<size_t>(n));
  while (!ready.empty()) {
    const int k = ready.top();
    ready.pop();
    order.push_back(k);
    for (int i = first[k]; i < first[k + 1]; ++i)
      if (--pending[users[i]] == 0) ready.push(users[i]);
  }
  return order;
}

}  // namespace condlint
