// ONNX011 shadows-outer-name: a subgraph input, initializer or node output reuses the name of an outer value.
// The loader records every name defined again where it is visible (OnnxData::redefinitions); one that hides a value
// of an enclosing graph is this rule's.
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
    r.report(d.loc, "in " + condlint::onnx_graph_label(m, d.graph) + ", " + condlint::onnx_source_name(d.source) +
                        " '" + d.name + "' shadows the outer value of that name (" + outer + " in " +
                        condlint::onnx_graph_label(m, d.earlier_graph) +
                        "); the ONNX IR forbids it and ONNX Runtime silently uses the inner value");
  }
}
}  // namespace condlint::rules::ONNX011

CONDLINT_RULE(ONNX011, "shadows-outer-name", Level::Error, kONNX,
              "A subgraph input, initializer or node output reuses the name of an outer value", check)
