// IR010 body-parameter-unmapped: a body Parameter receives no value from the If.
#include "rules/engine.hpp"
#include "rules/support/ir_util.hpp"

namespace condlint::rules::IR010 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  // A Parameter named by any input entry counts as mapped: a wrong external_port_id is IR006's finding.
  for_unmapped_layers(
      m, "Parameter", [](const IrPortMapEntry& e) { return e.is_input && e.has_internal; },
      [&](const Node& n, const IrIf& f, int b) {
        r.report(n.loc, "Parameter '" + n.display() + "' of " + branch_tag(b, "body") + " of If '" +
                            m.node(f.graph, f.node).display() + "' is bound to no If input by " + branch_tag(b, "map"));
      });
}
}  // namespace condlint::rules::IR010

CONDLINT_RULE(IR010, "body-parameter-unmapped", Level::Error, kIR, "A body Parameter has no input port-map entry",
              check)
