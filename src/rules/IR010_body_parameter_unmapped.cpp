// IR010 body-parameter-unmapped: a body Parameter receives no value from the If.
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
      // A Parameter named by any input entry counts as mapped: a wrong external_port_id is IR006's finding.
      std::vector<int64_t> bound;  // sorted below: a body has few entries, and a set allocates each
      for (const auto& e : f.port_map[b])
        if (e.is_input && e.has_internal) bound.push_back(e.internal_layer_id);
      std::sort(bound.begin(), bound.end());
      const Graph& body = m.graphs[f.body_graph[b]];
      for (const Node& n : body.nodes) {
        if (n.op != "Parameter") continue;
        int64_t id = 0;
        if (!parse_int64(n.id, id) || std::binary_search(bound.begin(), bound.end(), id)) continue;
        r.report(n.loc, "Parameter '" + n.display() + "' of " + branch_tag(b, "body") + " of If '" +
                            m.node(f.graph, f.node).display() + "' is bound to no If input by " +
                            branch_tag(b, "map"));
      }
    }
  }
}
}  // namespace

CONDLINT_RULE(IR010, "body-parameter-unmapped", Level::Error, kIR,
              "A body Parameter has no input port-map entry", check)
