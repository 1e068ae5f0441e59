// IR006 port-map-input-out-of-range: an input entry names an If input that does not exist.
#include "rules/engine.hpp"

namespace condlint::rules::IR006 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& f : m.ir->ifs) {
    const Node& n = m.node(f.graph, f.node);
    const auto count = static_cast<int64_t>(n.inputs.size());
    for (int b = 0; b < 2; ++b)
      for (const auto& e : f.port_map[b]) {
        if (!e.is_input || !e.has_external) continue;
        if (e.external_port_id >= 0 && e.external_port_id < count) continue;
        r.report(e.loc, std::string(b == 0 ? "then" : "else") + "_port_map input external_port_id=\"" +
                            std::to_string(e.external_port_id) + "\" is not an input of If '" + n.display() +
                            "', which has " + std::to_string(count) + " inputs (0.." + std::to_string(count - 1) +
                            ", 0 = condition)");
      }
  }
}
}  // namespace condlint::rules::IR006

CONDLINT_RULE(IR006, "port-map-input-out-of-range", Level::Error, kIR,
              "A port-map input entry names an If input that does not exist", check)
