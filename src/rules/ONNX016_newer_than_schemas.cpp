// ONNX016 newer-than-schemas: the model's IR version or an opset it imports is newer than the onnx schemas condlint
// links, so its nodes were judged by the newest older definitions. One note per model, naming what was used.
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <string>

#include "model/onnx_data.hpp"
#include "rules/engine.hpp"

namespace condlint::rules::ONNX016 {

void check(const condlint::Model& m, condlint::Reporter& r) {
  if (!m.onnx || m.graphs.empty()) return;
  const auto& known = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  std::string what;
  auto add = [&what](const std::string& s) { what += (what.empty() ? "" : "; ") + s; };
  const int64_t ir_known = onnx::Version::IR_VERSION;
  if (m.onnx->ir_version > ir_known)
    add("IR version " + std::to_string(m.onnx->ir_version) + " (the linked onnx knows up to " +
        std::to_string(ir_known) + ")");
  for (const auto& [domain, version] : m.onnx->opsets) {
    const auto it = known.find(domain);
    if (it == known.end() || version <= it->second.second) continue;
    const std::string name = domain.empty() ? "ai.onnx" : domain;
    add(name + " opset " + std::to_string(version) + " (judged by the definitions of opset " +
        std::to_string(it->second.second) + ", the newest the linked onnx has)");
  }
  if (what.empty()) return;
  condlint::SourceLocation loc;
  loc.graph = 0;
  r.report(loc, "the model is newer than condlint's onnx schemas: " + what +
                    "; operators changed after that version are checked by their older definitions, so a finding "
                    "about such an operator may not hold for this model");
}

}  // namespace condlint::rules::ONNX016

CONDLINT_RULE(ONNX016, "newer-than-schemas", Level::Note, kONNX,
              "The model's IR version or opset is newer than the onnx schemas condlint links", check)
