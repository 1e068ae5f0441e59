// ONNX004 branch-has-inputs: an If branch graph declares formal inputs. The ONNX loader records each branch's
// formal inputs (OnnxData::branch_inputs); every one is an error, since If branches take none.
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX004 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  if (!m.onnx) return;
  for (const auto& b : m.onnx->branch_inputs) {
    std::string names;
    for (size_t i = 0; i < b.names.size() && i < 4; ++i) names += (i ? ", '" : "'") + b.names[i] + "'";
    if (b.names.size() > 4) names += ", ...";
    r.report(b.loc, onnx_graph_label(m, b.graph) + " declares " + std::to_string(b.names.size()) + " formal input" +
                        (b.names.size() == 1 ? "" : "s") + " (" + names +
                        "); If branches take no inputs and read outer values by name");
  }
}
}  // namespace condlint::rules::ONNX004

CONDLINT_RULE(ONNX004, "branch-has-inputs", Level::Error, kONNX, "An If branch graph declares formal inputs", check)
