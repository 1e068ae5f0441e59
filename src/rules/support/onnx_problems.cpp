#include "rules/support/onnx_problems.hpp"

namespace condlint {

void report_onnx_problems(const Model& m, Reporter& r, OnnxProblem::Kind kind) {
  if (!m.onnx) return;
  for (const auto& p : m.onnx->problems)
    if (p.kind == kind) r.report(p.loc, p.message);
}

}  // namespace condlint
