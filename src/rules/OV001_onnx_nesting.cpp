// OV001 onnx-nesting-too-deep: under `--target openvino...`, an ONNX model nests If (or other subgraphs) deeper
// than OpenVINO's ONNX reader parses: it reads the file with protobuf's default recursion limit, so 31 levels of
// If read and 32 do not ("Model can't be parsed"; measured, data/targets.json). OpenVINO IR has no such limit.
#include <algorithm>

#include "model/onnx_data.hpp"
#include "rules/support/onnx_problems.hpp"
#include "rules/support/targets.hpp"

namespace condlint::rules::OV001 {

void check(const condlint::Model& m, condlint::Reporter& r) {
  if (!m.onnx || m.graphs.empty()) return;
  namespace t = condlint::targets;
  for (const auto& each : t::targets_for(r.options(), "openvino", m.format)) {
    // Named, not a structured binding: the lambdas below capture them (C++17 cannot capture a binding).
    const auto* rt = each.first;
    const auto* target = each.second;
    int deepest = 0;
    for (int g = 0; g < static_cast<int>(m.graphs.size()); ++g)
      if (m.graphs[g].depth > m.graphs[deepest].depth) deepest = g;
    const int depth = m.graphs[deepest].depth;
    // The smallest limit of the range is the one named; describe_refusal says which releases have it.
    int64_t limit = -1;
    for (size_t rel : t::covered(*rt, *target))
      if (const t::Fact* f = t::fact_at(*rt, "onnx_if_max_nesting", rel); f && f->number)
        limit = limit < 0 ? *f->number : std::min(limit, *f->number);
    if (limit < 0 || depth <= limit) continue;
    const std::string text = t::describe_refusal(
        *rt, *target,
        [&](size_t rel) {
          const t::Fact* f = t::fact_at(*rt, "onnx_if_max_nesting", rel);
          return f && f->number && depth > *f->number;
        },
        "ONNX subgraphs nested deeper than " + std::to_string(limit));
    if (text.empty()) continue;
    r.report(m.graphs[0].loc,
             text + ": " + condlint::onnx_graph_label(m, deepest) + " is at depth " + std::to_string(depth) +
                 " (its ONNX reader parses with protobuf's default recursion limit; target " + target->spec + ")");
  }
}

}  // namespace condlint::rules::OV001

CONDLINT_RULE(OV001, "onnx-nesting-too-deep", Level::Error, kONNX,
              "--target openvino: an ONNX model nests subgraphs deeper than OpenVINO's ONNX reader parses (31)", check)
