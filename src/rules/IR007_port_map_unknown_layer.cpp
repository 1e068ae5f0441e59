// IR007 port-map-unknown-layer: a port-map entry names a layer its body does not have.
#include "rules/engine.hpp"
#include "rules/support/ir_util.hpp"

namespace condlint::rules::IR007 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& f : m.ir->ifs) {
    for (int b = 0; b < 2; ++b) {
      if (f.body_graph[b] < 0) continue;
      const LayerIds ids(m, f.body_graph[b]);
      for (const auto& e : f.port_map[b]) {
        if (!e.has_internal || ids.contains(e.internal_layer_id)) continue;
        r.report(e.loc, std::string(branch_tag(b, "map")) + " " + (e.is_input ? "input" : "output") +
                            " internal_layer_id=\"" + std::to_string(e.internal_layer_id) + "\" names no layer of " +
                            branch_tag(b, "body") + " of If '" + m.node(f.graph, f.node).display() + "'");
      }
    }
  }
}
}  // namespace condlint::rules::IR007

CONDLINT_RULE(IR007, "port-map-unknown-layer", Level::Error, kIR,
              "A port-map entry's internal_layer_id names no layer of the body", check)
