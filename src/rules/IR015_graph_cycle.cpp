// IR015 graph-cycle: the edges of one graph form a cycle (model/graph_order.hpp).
#include <vector>

#include "model/graph_order.hpp"
#include "rules/engine.hpp"

namespace condlint::rules::IR015 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (int g = 0; g < static_cast<int>(m.graphs.size()); ++g) {
    const auto& nodes = m.graphs[g].nodes;
    const auto order = topological_order(m, g, /*self_loop_blocks=*/true);
    if (order.size() == nodes.size()) continue;
    // Report the first layer (in file order) left on a cycle.
    std::vector<char> ran(nodes.size(), 0);
    for (int k : order) ran[k] = 1;
    for (size_t i = 0; i < nodes.size(); ++i)
      if (!ran[i]) {
        r.report(nodes[i].loc, std::to_string(nodes.size() - order.size()) + " layers of this graph, " + nodes[i].op +
                                   " '" + nodes[i].display() + "' among them, lie on or behind a cycle of edges");
        break;
      }
  }
}
}  // namespace condlint::rules::IR015

CONDLINT_RULE(IR015, "graph-cycle", Level::Error, kIR, "The edges of one graph form a cycle", check)
