// ONNX010 duplicate-name: a value name is defined twice in one graph (SSA violation).
// The loader records every name defined again where it is visible (OnnxData::redefinitions); a second definition in
// the same graph is this rule's.
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX010 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  if (!m.onnx) return;
  using Src = condlint::OnnxRedefinition::Source;
  for (const auto& d : m.onnx->redefinitions) {
    if (d.earlier_graph != d.graph) continue;  // ONNX011's
    const char* earlier = d.earlier_source == Src::Input         ? "a graph input"
                          : d.earlier_source == Src::Initializer ? "an initializer"
                                                                 : "a node output";
    r.report(d.loc, "in " + condlint::onnx_graph_label(m, d.graph) + ", " + condlint::onnx_source_name(d.source) +
                        " '" + d.name + "' is already defined as " + earlier +
                        (d.earlier_source == Src::NodeOutput
                             ? " of " + condlint::onnx_node_label(m, d.earlier_graph, d.earlier_node)
                             : std::string()) +
                        "; ONNX values are assigned once (SSA)");
  }
}
}  // namespace condlint::rules::ONNX010

CONDLINT_RULE(ONNX010, "duplicate-name", Level::Error, kONNX,
              "A value name is defined twice in one graph (SSA violation)", check)
