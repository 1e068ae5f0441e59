// ONNX012 outer-value-passthrough: a subgraph output is an outer value returned without a node. The ONNX loader
// records each such output (OnnxData::outer_outputs); ONNX Runtime refuses them all.
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX012 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  if (!m.onnx) return;
  for (const auto& o : m.onnx->outer_outputs)
    r.report(o.loc, "output " + std::to_string(o.output) + " of " + onnx_graph_label(m, o.graph) +
                        " is the outer value '" + o.name + "' from " + onnx_graph_label(m, o.from_graph) +
                        " returned without a node; ONNX Runtime rejects this (add an Identity node in the branch)");
}
}  // namespace condlint::rules::ONNX012

CONDLINT_RULE(ONNX012, "outer-value-passthrough", Level::Error, kONNX,
              "A subgraph output is an outer value returned without a node", check)
