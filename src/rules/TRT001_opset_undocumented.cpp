// TRT001 opset-undocumented: under `--target tensorrt...`, the model's ai.onnx opset is newer than a release of the
// range documents (onnx-tensorrt's docs/operators.md: "supports operators up to Opset N"). TensorRT's parser does
// not refuse the file for its opset (ModelImporter only warns below opset 7), so this is a warning: operators of a
// newer opset may be parsed by an older definition or not at all.
#include "model/onnx_data.hpp"
#include "rules/support/targets.hpp"

namespace condlint::rules::TRT001 {

void check(const condlint::Model& m, condlint::Reporter& r) {
  if (!m.onnx || m.graphs.empty() || m.onnx->onnx_opset <= 0) return;
  namespace t = condlint::targets;
  const int64_t opset = m.onnx->onnx_opset;
  for (const auto& each : t::targets_for(r.options(), "tensorrt", m.format)) {
    // Named, not a structured binding: the lambdas below capture them (C++17 cannot capture a binding).
    const auto* rt = each.first;
    const auto* target = each.second;
    const std::string text = t::describe_refusal(
        *rt, *target,
        [&](size_t rel) {
          const t::Fact* f = t::fact_at(*rt, "onnx_max_opset", rel);
          return f && f->number && opset > *f->number;
        },
        "opset " + std::to_string(opset), "does not document");
    if (!text.empty())
      r.report(m.graphs[0].loc, text + ": its ONNX parser documents operators up to an older opset, so operators " +
                                    "of this one may be refused or read by an older definition (target " +
                                    target->spec + ")");
  }
}

}  // namespace condlint::rules::TRT001

CONDLINT_RULE(TRT001, "opset-undocumented", Level::Warning, kONNX,
              "--target tensorrt: the model's opset is newer than a release of the range documents", check)
