// ONNX014 external-data-outside: an external data location leaves the model's directory.
// The loader records each external data reference and where its location leads (OnnxData::external_data); it never
// opens one that leaves the directory.
#include "model/onnx_data.hpp"
#include "rules/engine.hpp"

namespace condlint::rules::ONNX014 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  if (!m.onnx) return;
  using Place = condlint::OnnxExternalData::Place;
  for (const auto& e : m.onnx->external_data) {
    if (e.place == Place::NoLocation) r.report(e.loc, e.owner + " has external data without a 'location'");
    else if (e.place == Place::LeavesDirectory)
      r.report(e.loc, e.owner + ": external data location \"" + e.location +
                          "\" leaves the model's directory (absolute or '..'); it was not opened");
    else if (e.place == Place::LinkLeavesDirectory)
      r.report(e.loc, e.owner + ": external data location \"" + e.location +
                          "\" resolves (through a symbolic link) outside the model's directory; it was not opened");
  }
}
}  // namespace condlint::rules::ONNX014

CONDLINT_RULE(ONNX014, "external-data-outside", Level::Error, kONNX,
              "An external data location leaves the model's directory", check)
