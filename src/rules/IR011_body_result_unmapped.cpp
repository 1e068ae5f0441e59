// IR011 body-result-unmapped: a body Result feeds no If output (its value is computed and dropped). A note: OpenVINO
// reads, compiles and runs such bodies, and its own converter writes them.
#include "rules/engine.hpp"
#include "rules/support/ir_util.hpp"

namespace condlint::rules::IR011 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  for_unmapped_layers(
      m, "Result",
      [](const IrPortMapEntry& e) {
        return !e.is_input && e.has_internal && e.has_external && e.external_port_id >= 0;
      },
      [&](const Node& n, const IrIf& f, int b) {
        r.report(n.loc, "Result '" + n.display() + "' of " + branch_tag(b, "body") + " of If '" +
                            m.node(f.graph, f.node).display() + "' is mapped to no If output by " +
                            branch_tag(b, "map"));
      });
}
}  // namespace condlint::rules::IR011

CONDLINT_RULE(IR011, "body-result-unmapped", Level::Note, kIR, "A body Result is mapped to no If output", check)
