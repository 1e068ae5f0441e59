#include "rules/support/onnx_problems.hpp"

namespace condlint {

void report_onnx_problems(const Model& m, Reporter& r, OnnxProblem::Kind kind) {
  if (!m.onnx) return;
  for (const auto& p : m.onnx->problems)
    if (p.kind == kind) r.report(p.loc, p.message);
}

std::string onnx_graph_label(const Model& m, int g) {
  if (g <= 0 || g >= static_cast<int>(m.graphs.size())) return "the main graph";
  const Graph& gr = m.graphs[g];
  if (gr.parent_graph < 0 || gr.parent_graph >= static_cast<int>(m.graphs.size()) || gr.parent_node < 0 ||
      gr.parent_node >= static_cast<int>(m.graphs[gr.parent_graph].nodes.size()))
    return gr.role;
  const Node& parent = m.graphs[gr.parent_graph].nodes[gr.parent_node];
  return onnx_attribute_of_role(parent.op, gr.role) + " of " + parent.op + " '" + parent.name + "'";
}

std::string onnx_node_label(const Model& m, int g, int n) {
  if (g < 0 || g >= static_cast<int>(m.graphs.size()) || n < 0 || n >= static_cast<int>(m.graphs[g].nodes.size()))
    return "a node";
  const Node& node = m.graphs[g].nodes[n];
  return node.op + " '" + node.name + "'";
}

const char* onnx_source_name(OnnxRedefinition::Source s) {
  switch (s) {
    case OnnxRedefinition::Source::Input: return "graph input";
    case OnnxRedefinition::Source::Initializer: return "initializer";
    case OnnxRedefinition::Source::NodeOutput: return "node output";
  }
  return "value";
}

}  // namespace condlint
