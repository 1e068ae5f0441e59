// ONNX013 branch-output-type-unknown: a branch output's type is neither declared nor inferable.
// The loader records each such output and the node where its unknown type starts (OnnxData::unknown_outputs); the
// rule reports once per such node (one root cause, one finding).
#include <set>

#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX013 {

// Whether graph `g` is a model-local function's body or nested in one: its values take their types from each call
// site, which the generic body does not state.
bool in_function(const condlint::Model& m, int g) {
  while (g >= 0 && g < static_cast<int>(m.graphs.size())) {
    if (m.graphs[g].own_root) return true;
    g = m.graphs[g].parent_graph;
  }
  return false;
}

void check(const condlint::Model& m, condlint::Reporter& r) {
  if (!m.onnx) return;
  std::set<std::pair<int, int>> roots;
  for (const auto& u : m.onnx->unknown_outputs) {
    // In a function's body an ai.onnx op's output may have no type the generic body proves (its inputs are typed at
    // the call sites, where onnx and ONNX Runtime infer it): not evidence of a defect. onnxslim's outputs have such
    // branches (a Constant made a branch initializer), which onnx's full check and ONNX Runtime accept. A custom
    // domain's op, which no inference knows anywhere, is still reported.
    const bool standard_root = u.root_domain.empty() || u.root_domain == "ai.onnx";
    if (in_function(m, u.graph) && standard_root) continue;
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
