// ONNX002 nesting-too-deep: subgraphs are nested deeper than stock onnx and ONNX Runtime can read (31).
// The loader records each graph's depth (Graph::depth, OnnxData::max_depth); the limit is decided here.
#include "model/onnx_data.hpp"
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX002 {

// The deepest If nesting that protobuf's default recursion limit (100 messages) lets onnx and ONNX Runtime read:
// each level costs a NodeProto, an AttributeProto and a GraphProto.
constexpr int kStockNesting = 31;

void check(const condlint::Model& m, condlint::Reporter& r) {
  if (!m.onnx || m.onnx->max_depth <= kStockNesting || m.graphs.empty()) return;
  int deepest = 0;
  for (int g = 0; g < static_cast<int>(m.graphs.size()); ++g)
    if (m.graphs[g].depth > m.graphs[deepest].depth) deepest = g;
  r.report(m.graphs[0].loc, "subgraphs are nested " + std::to_string(m.onnx->max_depth) + " deep (the deepest is " +
                                condlint::onnx_graph_label(m, deepest) +
                                "); stock onnx and ONNX Runtime read at most " + std::to_string(kStockNesting) +
                                " levels (protobuf's default recursion limit of 100) and cannot load this file");
}

}  // namespace condlint::rules::ONNX002

CONDLINT_RULE(ONNX002, "nesting-too-deep", Level::Warning, kONNX,
              "Subgraphs are nested deeper than stock onnx and ONNX Runtime can read (31)", check)
