// C007 output-type-mismatch: a branch gives another type than the conditional declares for that output.
//
// The fix (ONNX, IR): where both branches give one tensor type, the declared element type becomes it (what onnx's
// If inference and OpenVINO's If-8 rule compute for the output; OpenVINO re-infers it and ignores the port's
// precision). One fix per output: the finding of the first branch that contradicts carries it.
#include "rules/engine.hpp"
#include "rules/fix.hpp"
#include "rules/support/tflite_util.hpp"

namespace condlint::rules::C007 {
using namespace condlint;

// The element type both branches give output i, or Unknown when they do not agree on one concrete tensor type.
ElemType branches_type(const ConditionalView& c, size_t i) {
  const ValueDesc* got[2] = {nullptr, nullptr};
  for (int b = 0; b < 2; ++b)
    for (const auto& ob : c.branch[b].outputs)
      if (ob.output_index == static_cast<int>(i) && ob.value.present) got[b] = &ob.value;
  if (!got[0] || !got[1]) return ElemType::Unknown;
  const TypeDesc &t = got[0]->type, &e = got[1]->type;
  if (t.kind != TypeDesc::Kind::Tensor || !identical(t, e) || !is_concrete(t.elem)) return ElemType::Unknown;
  return t.elem;
}

// The edit that makes output i's declared element type `want`; nullopt with `why` when it cannot be made.
std::optional<Fix> plan_retype(const Model& m, const ConditionalView& c, size_t i, std::string_view text,
                               std::string& why) {
  const ElemType want = branches_type(c, i);
  if (!is_concrete(want)) {
    why = "the branches do not give one type";
    return std::nullopt;
  }
  if (c.outputs[i].type.kind != TypeDesc::Kind::Tensor) {
    why = "the output is not declared a tensor";
    return std::nullopt;
  }
  Fix fix;
  fix.description = c.name + " output " + std::to_string(i) + " declared " + std::string(to_string(want)) +
                    " (was " + c.outputs[i].type.str() + "): the type both branches give";
  const Node& n = m.node(c.graph, c.node);
  if (m.format == Format::ONNX) {
    if (m.graphs[c.graph].own_root || i >= n.outputs.size() || n.outputs[i].id.empty()) {
      why = "the output has no declaration the fix can reach";
      return std::nullopt;
    }
    OnnxEdit edit;
    edit.kind = OnnxEdit::Kind::SetDeclaredType;
    edit.graph = c.graph;
    edit.name = n.outputs[i].id.str();
    edit.elem = want;
    fix.onnx.push_back(std::move(edit));
    return fix;
  }
  if (m.format != Format::IR) {
    why = "only ONNX and IR declarations are rewritten";
    return std::nullopt;
  }
  if (text.empty()) return fix;
  const int64_t at = c.outputs[i].loc.offset;
  const auto value =
      at >= 0 && text.compare(static_cast<size_t>(at), 5, "<port") == 0 ? xml_attribute(text, at, "precision")
                                                                         : std::nullopt;
  if (!value) {
    why = "the If's output port states no precision where the model says";
    return std::nullopt;
  }
  fix.text.push_back(
      {static_cast<int64_t>(value->first), static_cast<int64_t>(value->second), ir_precision_text(want)});
  return fix;
}

void check(const Model& m, Reporter& r) {
  for (const auto& c : m.conditionals) {
    std::vector<char> offered(c.outputs.size(), 0);  // output -> a finding already carries its fix
    for (const auto& br : c.branch) {
      for (const auto& ob : br.outputs) {
        if (ob.output_index < 0 || ob.output_index >= static_cast<int>(c.outputs.size())) continue;
        const ValueDesc& declared = c.outputs[ob.output_index];
        if (!ob.value.present || !declared.present || same_type(declared.type, ob.value.type)) continue;
        const std::string msg = c.name + " output " + std::to_string(ob.output_index) + " is declared " +
                                declared.type.str() + " but the " + br.name + " branch gives " + ob.value.type.str() +
                                " (" + ob.value.label + ")";
        // The TFLite interpreter runs it (the output's type follows the branch): a warning, by that evidence.
        if (m.format == Format::TFLITE) {
          r.report_at(Level::Warning, c.loc, msg + "; " + tflr::kTypeNotChecked);
          continue;
        }
        const size_t i = static_cast<size_t>(ob.output_index);
        std::string why;
        const bool fixable = !offered[i] && plan_retype(m, c, i, {}, why);
        offered[i] = offered[i] || fixable;
        r.report_fixable(fixable ? Fixable::Safe : Fixable::No, declared.loc.line ? declared.loc : c.loc, msg,
                         std::to_string(i));
      }
    }
  }
}

std::optional<Fix> make_fix(const Model& m, const Finding& f, std::string_view text, std::string& why) {
  const auto key = fix_key_index(f);
  if (!key) {
    why = "the finding names no output";
    return std::nullopt;
  }
  const size_t i = *key;
  for (const auto& c : m.conditionals)
    if (c.graph == f.loc.graph && c.node == f.loc.node_index && i < c.outputs.size())
      return plan_retype(m, c, i, text, why);
  why = "the If is not where the finding says";
  return std::nullopt;
}
}  // namespace condlint::rules::C007

CONDLINT_RULE(C007, "output-type-mismatch", Level::Error, kAllFormats,
              "A branch result's type differs from the conditional's declared output type", check)
CONDLINT_FIX(C007, make_fix)
