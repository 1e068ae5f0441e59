// ONNX007 declared-vs-inferred: a declared type or shape contradicts what its producing node computes. The ONNX
// loader records each contradiction it meets while it walks the scopes (OnnxDeclaredVsComputed) and goes on with
// what the node computes; one that rests on an already reported problem is left out (one root cause, one finding).
#include <string>

#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX007 {

std::string what(const OnnxDeclaredVsComputed& c) {
  using Differs = OnnxDeclaredVsComputed::Differs;
  switch (c.differs) {
    case Differs::Type: return "is declared " + c.declared + " but the node computes " + c.computed;
    case Differs::Shape: return "is declared with shape " + c.declared + " but the node computes " + c.computed;
    case Differs::ElementShape:
      return "is declared " + c.declared + " with an element shape that contradicts what the node computes (" +
             c.declared_element_shape + " declared, " + c.computed_element_shape + " computed)";
  }
  return {};
}

void check(const condlint::Model& m, condlint::Reporter& r) {
  if (!m.onnx) return;
  for (const OnnxDeclaredVsComputed& c : m.onnx->declared_vs_computed) {
    if (c.rests_on_reported) continue;
    r.report(c.loc, "in " + onnx_graph_label(m, c.graph) + ", output " + std::to_string(c.output) + " '" + c.name +
                        "' of " + onnx_node_label(m, c.graph, c.node) + " " + what(c));
  }
}

}  // namespace condlint::rules::ONNX007

CONDLINT_RULE(ONNX007, "declared-vs-inferred", Level::Error, kONNX,
              "Inside a branch, a declared type or shape contradicts what its producing node computes", check)
