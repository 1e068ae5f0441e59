// ONNX009 undefined-name: a node or graph output reads a name no enclosing scope defines before it.
// The loader resolves every name through the chain of scopes and records the ones it cannot
// (OnnxData::undefined_reads).
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX009 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  if (!m.onnx) return;
  for (const auto& u : m.onnx->undefined_reads) {
    const std::string graph = condlint::onnx_graph_label(m, u.graph);
    if (u.node >= 0)
      r.report(u.loc, condlint::onnx_node_label(m, u.graph, u.node) + " in " + graph + " reads '" + u.name +
                          "', which no graph input, initializer or earlier node defines in this graph or an enclosing "
                          "one");
    else
      r.report(u.loc,
               "output " + std::to_string(u.output) + " of " + graph + " is '" + u.name + "'" +
                   (u.name.empty() ? ", an empty name" : ", which nothing in this graph or an enclosing one defines"));
  }
}
}  // namespace condlint::rules::ONNX009

CONDLINT_RULE(ONNX009, "undefined-name", Level::Error, kONNX,
              "A node or graph output reads a name no enclosing scope defines before it", check)
