// ONNX013 branch-output-type-unknown: a branch output's type is neither declared nor inferable.
// The loader records each such output and the node where its unknown type starts (OnnxData::unknown_outputs); the
// rule reports once per such node (one root cause, one finding).
#include <set>

#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX013 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  if (!m.onnx) return;
  std::set<std::pair<int, int>> roots;
  for (const auto& u : m.onnx->unknown_outputs) {
    if (!roots.insert({u.root_graph, u.root_node}).second) continue;
    std::string why;
    if (u.root_graph >= 0)
      why = "it rests on " + condlint::onnx_node_label(m, u.root_graph, u.root_node) + " in " +
            condlint::onnx_graph_label(m, u.root_graph) + ", " +
            (u.root_domain.empty() || u.root_domain == "ai.onnx"
                 ? "for which onnx infers no type"
                 : "whose domain '" + u.root_domain + "' onnx has no schema for");
    else why = "it rests on a graph input without a type";
    r.report(u.loc, "output " + std::to_string(u.output) + " '" + u.name + "' of " +
                        condlint::onnx_graph_label(m, u.graph) + " has no declared type and none can be inferred (" +
                        why + "); declare its type on the branch output");
  }
}
}  // namespace condlint::rules::ONNX013

CONDLINT_RULE(ONNX013, "branch-output-type-unknown", Level::Warning, kONNX,
              "A branch output's type is neither declared nor inferable", check)
