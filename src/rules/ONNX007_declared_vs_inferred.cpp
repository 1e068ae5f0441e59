// ONNX007 declared-vs-inferred: a declared type or shape contradicts what its producing node computes. The ONNX
// loader records each contradiction it meets while it walks the scopes (OnnxDeclaredVsComputed) and goes on with
// what the node computes; one that rests on an already reported problem is left out (one root cause, one finding).
// An error where onnx's inference computes the contradiction too (its checker rejects the model); a warning where
// only condlint's deeper inference proves a shape (Loop/Scan outputs, a decided If, constants of an enclosing graph).
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
    const std::string message = "in " + onnx_graph_label(m, c.graph) + ", output " + std::to_string(c.output) + " '" +
                                c.name + "' of " + onnx_node_label(m, c.graph, c.node) + " " + what(c);
    // Severity by evidence (docs/precision.md): what onnx's own inference computes, its checker rejects; what only
    // condlint's deeper inference proves is a declaration the model contradicts, which the runtimes load.
    if (c.beyond_onnx && c.differs != OnnxDeclaredVsComputed::Differs::Type)
      r.report_at(Level::Warning, c.loc,
                  message +
                      " (condlint's inference of control flow or of an enclosing graph's constants proves it; "
                      "onnx's checker accepts the model)");
    else r.report(c.loc, message);
  }
}

}  // namespace condlint::rules::ONNX007

CONDLINT_RULE(ONNX007, "declared-vs-inferred", Level::Error, kONNX,
              "Inside a branch, a declared type or shape contradicts what its producing node computes", check)
