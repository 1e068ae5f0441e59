// ONNX016 newer-than-schemas: part of the model is newer than anything condlint can judge it by. condlint judges each
// node by the definition its opset selects, from the linked onnx or, where that one is older, from the facts of the
// newest onnx it has (model/onnx_schema_facts). The loader records the nodes whose domain's opset is newer than even
// those facts know (OnnxData::unjudged_ops) and the tensors of element types the linked onnx cannot check
// (OnnxData::unchecked_tensors); this rule names them in one note per model.
#include <string>

#include "model/onnx_data.hpp"
#include "model/onnx_schema_facts.hpp"
#include "rules/engine.hpp"

namespace condlint::rules::ONNX016 {

void check(const condlint::Model& m, condlint::Reporter& r) {
  if (!m.onnx || m.graphs.empty()) return;
  const std::string facts = "onnx " + std::string(condlint::schema_facts::onnx_version());
  std::string what;
  auto add = [&what](const std::string& s) { what += (what.empty() ? "" : "; ") + s; };
  std::string newer;
  for (const auto& [domain, version] : m.onnx->opsets) {
    const int newest = condlint::schema_facts::newest_opset(domain);
    if (newest <= 0 || version <= newest) continue;
    newer += (newer.empty() ? "" : ", ") + (domain.empty() ? std::string("ai.onnx") : domain) + " opset " +
             std::to_string(version) + " (" + facts + " knows up to " + std::to_string(newest) + ")";
  }
  if (!newer.empty()) {
    std::string ops;
    int nodes = 0, shown = 0;
    for (const auto& [op, count] : m.onnx->unjudged_ops) {
      nodes += count;
      if (++shown <= 8) ops += (ops.empty() ? "" : ", ") + op;
    }
    if (shown > 8) ops += ", ...";
    add("the model imports " + newer + ", so " +
        (nodes == 0 ? std::string("no node of it was read")
                    : std::to_string(nodes) + " node" + (nodes == 1 ? "" : "s") + " (" + ops +
                          ") could not be judged: not checked, outputs of unknown type"));
  }
  if (const int t = m.onnx->unchecked_tensors; t > 0)
    add(std::to_string(t) + " tensor" + (t == 1 ? " has" : "s have") +
        " an element type no onnx release condlint knows defines: their data was not checked");
  if (what.empty()) return;
  condlint::SourceLocation loc;
  loc.graph = 0;
  r.report(loc, "part of the model is newer than condlint can judge: " + what);
}

}  // namespace condlint::rules::ONNX016

CONDLINT_RULE(ONNX016, "newer-than-schemas", Level::Note, kONNX,
              "Part of the model is newer than the onnx definitions condlint judges by", check)
