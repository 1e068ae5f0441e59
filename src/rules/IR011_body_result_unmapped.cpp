// IR011 body-result-unmapped: a body Result feeds no If output (its value is computed and dropped). A note: OpenVINO
// reads, compiles and runs such bodies, and its own converter writes them.
#include "rules/engine.hpp"
#include "rules/fix.hpp"
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
        r.report_fixable(Fixable::Safe, n.loc,
                         "Result '" + n.display() + "' of " + branch_tag(b, "body") + " of If '" +
                             m.node(f.graph, f.node).display() + "' is mapped to no If output by " +
                             branch_tag(b, "map"));
      });
}

// The Result layer removed, and the edge into it: the value was computed and dropped, so every output stays.
std::optional<Fix> make_fix(const Model& m, const Finding& f, std::string_view text, std::string& why) {
  if (f.loc.graph < 0 || f.loc.graph >= static_cast<int>(m.graphs.size()) || f.loc.node_index < 0 ||
      f.loc.node_index >= static_cast<int>(m.graphs[f.loc.graph].nodes.size())) {
    why = "the Result is not in the model";
    return std::nullopt;
  }
  const Node& n = m.node(f.loc.graph, f.loc.node_index);
  const auto layer = xml_element_range(text, n.loc.offset);
  if (n.op != "Result" || !layer) {
    why = "the Result layer is not where the finding says";
    return std::nullopt;
  }
  Fix fix;
  fix.text.push_back({layer->first, layer->second, ""});
  int edges = 0;
  for (const IrEdge& e : m.ir->graph_extra[f.loc.graph].edges) {
    if (e.to_layer != n.id.str()) continue;
    const auto edge = xml_element_range(text, e.loc.offset);
    if (!edge) {
      why = "an edge into the Result cannot be read";
      return std::nullopt;
    }
    fix.text.push_back({edge->first, edge->second, ""});
    ++edges;
  }
  fix.description = "removed Result '" + n.display() + "' (layer " + n.id.str() + ")" +
                    (edges ? edges == 1 ? " and the edge into it" : " and the edges into it" : "");
  return fix;
}
}  // namespace condlint::rules::IR011

CONDLINT_RULE(IR011, "body-result-unmapped", Level::Note, kIR, "A body Result is mapped to no If output", check)
CONDLINT_FIX(IR011, make_fix)
