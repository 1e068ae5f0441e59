// IR011 body-result-unmapped: a body Result feeds no If output (its value is computed and dropped).
#include <algorithm>
#include <vector>

#include "rules/engine.hpp"
#include "rules/support/ir_util.hpp"

namespace {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for (const auto& f : m.ir->ifs) {
    for (int b = 0; b < 2; ++b) {
      if (f.body_graph[b] < 0) continue;
      std::vector<int64_t> mapped;  // sorted below: a body has few entries, and a set allocates each
      for (const auto& e : f.port_map[b])
        if (!e.is_input && e.has_internal && e.has_external && e.external_port_id >= 0) mapped.push_back(e.internal_layer_id);
      std::sort(mapped.begin(), mapped.end());
      for (const Node& n : m.graphs[f.body_graph[b]].nodes) {
        if (n.op != "Result") continue;
        int64_t id = 0;
        if (!parse_int64(n.id, id) || std::binary_search(mapped.begin(), mapped.end(), id)) continue;
        r.report(n.loc, "Result '" + n.display() + "' of " + branch_tag(b, "body") + " of If '" +
                            m.node(f.graph, f.node).display() + "' is mapped to no If output by " +
                            branch_tag(b, "map"));
      }
    }
  }
}
}  // namespace

CONDLINT_RULE(IR011, "body-result-unmapped", Level::Warning, kIR, "A body Result is mapped to no If output", check)
