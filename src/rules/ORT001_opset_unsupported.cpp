// ORT001 opset-unsupported: under `--target onnxruntime...`, the model's ai.onnx opset or IR version is newer than
// a release of the range loads. ONNX Runtime refuses both when it creates a session ("Unsupported model IR version",
// "Opset N is under development"); which release loads what is data/targets.json's (measured on the PyPI wheels).
#include "model/onnx_data.hpp"
#include "rules/support/targets.hpp"

namespace condlint::rules::ORT001 {

void check(const condlint::Model& m, condlint::Reporter& r) {
  if (!m.onnx || m.graphs.empty()) return;
  namespace t = condlint::targets;
  for (const auto& each : t::targets_for(r.options(), "onnxruntime", m.format)) {
    // Named, not a structured binding: the lambdas below capture them (C++17 cannot capture a binding).
    const auto* rt = each.first;
    const auto* target = each.second;
    auto above = [&](std::string_view kind, int64_t value) {
      return [&, kind, value](size_t rel) {
        const t::Fact* f = t::fact_at(*rt, kind, rel);
        return f && f->number && value > *f->number;
      };
    };
    const int64_t opset = m.onnx->onnx_opset;
    if (opset > 0) {
      const std::string text =
          t::describe_refusal(*rt, *target, above("onnx_max_opset", opset), "opset " + std::to_string(opset));
      if (!text.empty())
        r.report(m.graphs[0].loc, text + ": ONNX Runtime refuses to create a session for an ai.onnx opset newer " +
                                      "than it implements (target " + target->spec + ")");
    }
    const int64_t ir = m.onnx->ir_version;
    if (ir > 0) {
      const std::string text =
          t::describe_refusal(*rt, *target, above("onnx_max_ir_version", ir), "IR version " + std::to_string(ir));
      if (!text.empty())
        r.report(m.graphs[0].loc, text + ": ONNX Runtime refuses a model whose IR version is newer than it reads " +
                                      "(target " + target->spec + ")");
    }
  }
}

}  // namespace condlint::rules::ORT001

CONDLINT_RULE(ORT001, "opset-unsupported", Level::Error, kONNX,
              "--target onnxruntime: the model's opset or IR version is newer than a release of the range loads", check)
