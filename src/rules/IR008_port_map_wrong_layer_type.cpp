// IR008 port-map-wrong-layer-type: inputs must map to Parameters, outputs must come from Results.
#include "rules/engine.hpp"
#include "rules/support/ir_util.hpp"

namespace condlint::rules::IR008 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& f : m.ir->ifs) {
    for (int b = 0; b < 2; ++b) {
      if (f.body_graph[b] < 0) continue;
      const Graph& body = m.graphs[f.body_graph[b]];
      const LayerIds ids(m, f.body_graph[b]);
      for (const auto& e : f.port_map[b]) {
        if (!e.has_internal) continue;
        const int at = ids.find(e.internal_layer_id);
        if (at < 0) continue;
        const Node& target = body.nodes[at];
        const char* want = e.is_input ? "Parameter" : "Result";
        if (target.op == want) continue;
        r.report(e.loc, std::string(branch_tag(b, "map")) + " " + (e.is_input ? "input" : "output") +
                            " entry maps to " + target.op + " '" + target.display() + "' (layer " + target.id +
                            "); it must be a " + want);
      }
    }
  }
}
}  // namespace condlint::rules::IR008

CONDLINT_RULE(IR008, "port-map-wrong-layer-type", Level::Error, kIR,
              "A port-map input does not map to a Parameter, or an output does not come from a Result", check)
