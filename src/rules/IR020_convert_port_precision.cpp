// IR020 convert-port-precision: a Convert's output port states another element type than its destination_type.
//
// OpenVINO infers a Convert's output type from destination_type and never reads the port's precision, and its own
// serializer writes such ports: `save_model(..., compress_to_fp16=True)` (the default) keeps FP16 on the output ports
// of the decompression Converts it inserts (rt_info `decompression`), which convert to f32. The Conditional view
// types a Convert's output by destination_type (loaders/ir_loader value_of), so C006/C007 judge what OpenVINO
// computes; this note says once per model that the file states otherwise.
#include <vector>

#include "rules/engine.hpp"
#include "rules/fix.hpp"

namespace condlint::rules::IR020 {
using namespace condlint;

// A Convert whose output port states another element type than its destination_type, with both types.
struct Mismatch {
  const Node* node;
  ElemType want, said;
};

std::vector<Mismatch> mismatched_converts(const Model& m) {
  std::vector<Mismatch> out;
  for (const Graph& g : m.graphs)
    for (const Node& n : g.nodes) {
      if (n.op != "Convert" || n.outputs.empty()) continue;
      const std::string* to = n.attrs.find("destination_type");
      // A value, not an optional: GCC 12 warns (falsely) of an optional read uninitialized here.
      const ElemType want = to ? parse_ov_elem_type(*to).value_or(ElemType::Unknown) : ElemType::Unknown;
      const ElemType said = n.outputs[0].type().elem;
      if (is_concrete(want) && is_concrete(said) && said != want) out.push_back({&n, want, said});
    }
  return out;
}

void check(const Model& m, Reporter& r) {
  const std::vector<Mismatch> all = mismatched_converts(m);
  const size_t count = all.size();
  const Node* first = all.empty() ? nullptr : all.front().node;
  const std::string first_text =
      all.empty() ? std::string()
                  : "Convert '" + first->display() + "' converts to " + std::string(to_string(all.front().want)) +
                        " but its output port states " + std::string(to_string(all.front().said));
  if (!first) return;
  std::string msg = first_text;
  if (count > 1) msg += " (and " + std::to_string(count - 1) + (count == 2 ? " more Convert" : " more Converts") + " alike)";
  msg += "; OpenVINO types a Convert by its destination_type and ignores the port, so condlint judges " +
         std::string(to_string(*parse_ov_elem_type(*first->attrs.find("destination_type")))) + " there";
  msg += " (OpenVINO's save_model with compress_to_fp16, its default, writes the Converts it inserts so)";
  r.report_fixable(Fixable::Safe, first->loc, msg);
}

// Every such Convert's output port made to state its destination_type: OpenVINO types the Convert by it and never
// reads the port, so nothing it computes changes; the file then says what OpenVINO reads.
std::optional<Fix> make_fix(const Model& m, const Finding&, std::string_view text, std::string& why) {
  Fix fix;
  for (const Mismatch& x : mismatched_converts(m)) {
    // The precision attribute of the output port's start tag.
    const int64_t at = x.node->outputs[0].loc(*x.node).offset;
    const auto value = at >= 0 && text.compare(static_cast<size_t>(at), 5, "<port") == 0
                           ? xml_attribute(text, at, "precision")
                           : std::nullopt;
    if (!value) {
      why = "the output port of Convert '" + x.node->display() + "' states no precision where the model says";
      return std::nullopt;
    }
    fix.text.push_back({static_cast<int64_t>(value->first), static_cast<int64_t>(value->second),
                        ir_precision_text(x.want)});
  }
  const size_t count = fix.text.size();
  if (!count) {
    why = "no Convert states another precision";
    return std::nullopt;
  }
  fix.description = "the output port of " + std::to_string(count) + (count == 1 ? " Convert" : " Converts") +
                    " now states its destination_type (what OpenVINO computes)";
  return fix;
}
}  // namespace condlint::rules::IR020

CONDLINT_RULE(IR020, "convert-port-precision", Level::Note, kIR,
              "A Convert's output port states another element type than its destination_type", check)
CONDLINT_FIX(IR020, make_fix)
