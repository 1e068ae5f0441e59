// ONNX011 shadows-outer-name: a subgraph input, initializer or node output reuses the name of an outer value.
// The loader records every name defined again where it is visible (OnnxData::redefinitions); one that hides a value
// of an enclosing graph is this rule's: an error, or a warning where an initializer hides an outer initializer of
// equal element type, dims and bytes (OnnxRedefinition::equal_value), which no reader can resolve differently.
#include "rules/fix.hpp"
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX011 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  if (!m.onnx) return;
  using Src = condlint::OnnxRedefinition::Source;
  for (const auto& d : m.onnx->redefinitions) {
    if (d.earlier_graph == d.graph) continue;  // ONNX010's
    const std::string outer = d.earlier_source == Src::NodeOutput
                                  ? "output of " + condlint::onnx_node_label(m, d.earlier_graph, d.earlier_node)
                                  : std::string(d.earlier_source == Src::Input ? "graph input" : "initializer");
    const std::string what = "in " + condlint::onnx_graph_label(m, d.graph) + ", " +
                             condlint::onnx_source_name(d.source) + " '" + d.name +
                             "' shadows the outer value of that name (" + outer + " in " +
                             condlint::onnx_graph_label(m, d.earlier_graph) + "); the ONNX IR forbids it";
    if (d.equal_value)  // onnxslim copies an outer initializer into a branch under its name
      r.report_fixable(Fixable::Safe, d.loc,
                       what + ", but its element type, dims and bytes are equal to the outer value: no runtime can "
                              "differ",
                       d.name, Level::Warning);
    else
      r.report(d.loc, what + " and readers disagree: ONNX Runtime 1.32 (at every optimization level) uses the outer "
                             "value, a reader that looks up the innermost scope first the inner one");
  }
}

// The subgraph's copy removed: its readers then read the outer value, which holds the same element type, dims and
// bytes. Only for the equal-value case (the finding's key names the initializer).
std::optional<condlint::Fix> make_fix(const condlint::Model& m, const condlint::Finding& f, std::string_view,
                                      std::string& why) {
  using Src = condlint::OnnxRedefinition::Source;
  if (m.onnx)
    for (const auto& d : m.onnx->redefinitions)
      if (d.equal_value && d.source == Src::Initializer && d.name == f.fix_key && d.graph == f.loc.graph) {
        condlint::Fix fix;
        condlint::OnnxEdit edit;
        edit.kind = condlint::OnnxEdit::Kind::RemoveInitializer;
        edit.graph = d.graph;
        edit.name = d.name;
        fix.onnx.push_back(std::move(edit));
        fix.description = "removed initializer '" + d.name + "' of " + condlint::onnx_graph_label(m, d.graph) +
                          " (equal to the outer value, which its readers now read)";
        return fix;
      }
  why = "no equal shadowing initializer of that name in that graph";
  return std::nullopt;
}
}  // namespace condlint::rules::ONNX011

CONDLINT_RULE(ONNX011, "shadows-outer-name", Level::Error, kONNX,
              "A subgraph input, initializer or node output reuses the name of an outer value", check)
CONDLINT_FIX(ONNX011, make_fix)
