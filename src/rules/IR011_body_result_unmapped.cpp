// IR011 body-result-unmapped: a body Result feeds no If output (its value is computed and dropped).
#include <set>

#include "rules/engine.hpp"
#include "rules/support/ir_util.hpp"

namespace {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& f : m.ir->ifs) {
    for (int b = 0; b < 2; ++b) {
      if (f.body_graph[b] < 0) continue;
      std::set<int64_t> mapped;
      for (const auto& e : f.port_map[b])
        if (!e.is_input && e.has_internal && e.has_external && e.external_port_id >= 0) mapped.insert(e.internal_layer_id);
      for (const Node& n : m.graphs[f.body_graph[b]].nodes) {
        if (n.op != "Result") continue;
        int64_t id = 0;
        if (!parse_int64(n.id, id) || mapped.count(id)) continue;
        r.report(n.loc, "Result '" + n.display() + "' of " + branch_tag(b, "body") + " of If '" +
                            m.node(f.graph, f.node).display() + "' is mapped to no If output by " +
                            branch_tag(b, "map"));
      }
    }
  }
}
}  // namespace

CONDLINT_RULE(IR011, "body-result-unmapped", Level::Warning, kIR, "A body Result is mapped to no If output", check)
