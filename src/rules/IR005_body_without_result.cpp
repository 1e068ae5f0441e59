// IR005 body-without-result: an If body has no Result layer, so it produces nothing.
#include <algorithm>

#include "rules/engine.hpp"

namespace condlint::rules::IR005 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& f : m.ir->ifs) {
    for (int b = 0; b < 2; ++b) {
      if (f.body_graph[b] < 0) continue;
      const Graph& g = m.graphs[f.body_graph[b]];
      const bool has_result =
          std::any_of(g.nodes.begin(), g.nodes.end(), [](const Node& n) { return n.op == "Result"; });
      if (!has_result)
        r.report(g.loc, std::string(b == 0 ? "then_body" : "else_body") + " of If '" +
                            m.node(f.graph, f.node).display() + "' has no Result layer");
    }
  }
}
}  // namespace condlint::rules::IR005

CONDLINT_RULE(IR005, "body-without-result", Level::Error, kIR, "An If body contains no Result layer", check)
