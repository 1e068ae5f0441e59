// ONNX005 branch-output-kind: a branch output's type kind is not allowed by the If version of the model's opset.
// The loader records each typed branch output as onnx spells it (OnnxData::branch_output_types) and the types the
// model's If version allows (OnnxData::if_allowed_types, from onnx's schema); the rule compares them.
#include "rules/support/onnx_problems.hpp"

namespace condlint::rules::ONNX005 {

// Why If-`version` does not allow an output of `type`, "" when it does (If-1/11: tensors; If-13: + sequences; If-16:
// + optionals; no version: maps or sparse tensors).
std::string why_not_allowed(const condlint::TypeDesc& type, const std::string& onnx_type, int version,
                            const std::set<std::string>& allowed) {
  using Kind = condlint::TypeDesc::Kind;
  if (type.kind == Kind::Sequence && version < 13) return "sequence outputs need If-13 (opset 13)";
  if (type.kind == Kind::Optional && version < 16) return "optional outputs need If-16 (opset 16)";
  if (type.kind == Kind::Map || type.kind == Kind::SparseTensor)
    return std::string("no If version allows a ") + (type.kind == Kind::Map ? "map" : "sparse tensor") + " output";
  if (!allowed.empty() && type.known() && !onnx_type.empty() && !allowed.count(onnx_type))
    return onnx_type + " is not among If-" + std::to_string(version) + "'s allowed types";
  return "";
}

void check(const condlint::Model& m, condlint::Reporter& r) {
  if (!m.onnx || m.onnx->if_since_version <= 0) return;
  for (const auto& t : m.onnx->branch_output_types) {
    if (t.conditional < 0 || t.conditional >= static_cast<int>(m.conditionals.size())) continue;
    const condlint::ConditionalView& view = m.conditionals[t.conditional];
    const condlint::BranchView& br = view.branch[t.branch];
    if (t.output < 0 || t.output >= static_cast<int>(br.outputs.size())) continue;
    const condlint::TypeDesc& type = br.outputs[t.output].value.type;
    const std::string why = why_not_allowed(type, t.onnx_type, m.onnx->if_since_version, m.onnx->if_allowed_types);
    if (!why.empty())
      r.report(view.loc, view.name + " output " + std::to_string(t.output) + ": the " + br.name + " branch gives " +
                             type.str() + "; " + why + " (the model imports ai.onnx opset " +
                             std::to_string(m.onnx->onnx_opset) + ")");
  }
}

}  // namespace condlint::rules::ONNX005

CONDLINT_RULE(ONNX005, "branch-output-kind", Level::Error, kONNX,
              "A branch output's type kind is not allowed by the If version of the model's opset", check)
