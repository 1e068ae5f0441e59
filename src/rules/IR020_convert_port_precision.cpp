// IR020 convert-port-precision: a Convert's output port states another element type than its destination_type.
//
// OpenVINO infers a Convert's output type from destination_type and never reads the port's precision, and its own
// serializer writes such ports: `save_model(..., compress_to_fp16=True)` (the default) keeps FP16 on the output ports
// of the decompression Converts it inserts (rt_info `decompression`), which convert to f32. The Conditional view
// types a Convert's output by destination_type (loaders/ir_loader value_of), so C006/C007 judge what OpenVINO
// computes; this note says once per model that the file states otherwise.
#include "rules/engine.hpp"
#include "rules/fix.hpp"

namespace condlint::rules::IR020 {
using namespace condlint;

void check(const Model& m, Reporter& r) {
  const Node* first = nullptr;
  std::string first_text;
  size_t count = 0;
  for (const Graph& g : m.graphs)
    for (const Node& n : g.nodes) {
      if (n.op != "Convert" || n.outputs.empty()) continue;
      const std::string* to = n.attrs.find("destination_type");
      // A value, not an optional: GCC 12 warns (falsely) of an optional read uninitialized here.
      const ElemType want = to ? parse_ov_elem_type(*to).value_or(ElemType::Unknown) : ElemType::Unknown;
      const ElemType said = n.outputs[0].type().elem;
      if (!is_concrete(want) || !is_concrete(said) || said == want) continue;
      ++count;
      if (!first) {
        first = &n;
        first_text = "Convert '" + n.display() + "' converts to " + std::string(to_string(want)) +
                     " but its output port states " + std::string(to_string(said));
      }
    }
  if (!first) return;
  std::string msg = first_text;
  if (count > 1) msg += " (and " + std::to_string(count - 1) + (count == 2 ? " more Convert" : " more Converts") + " alike)";
  msg += "; OpenVINO types a Convert by its destination_type and ignores the port, so condlint judges " +
         std::string(to_string(*parse_ov_elem_type(*first->attrs.find("destination_type")))) + " there";
  msg += " (OpenVINO's save_model with compress_to_fp16, its default, writes the Converts it inserts so)";
  r.report_fixable(Fixable::Safe, first->loc, msg);
}

// The precision OpenVINO's serializer writes for an element type (FP32, I64, BOOL), else its canonical name.
std::string precision_name(ElemType t) {
  static constexpr const char* kWritten[] = {"BOOL", "FP16", "BF16", "FP32", "FP64", "I4",  "I8",  "I16",
                                             "I32",  "I64",  "U1",   "U4",   "U8",   "U16", "U32", "U64"};
  for (const char* w : kWritten)
    if (parse_ov_elem_type(w) == t) return w;
  return std::string(to_string(t));
}

// Every such Convert's output port made to state its destination_type: OpenVINO types the Convert by it and never
// reads the port, so nothing it computes changes; the file then says what OpenVINO reads.
std::optional<Fix> make_fix(const Model& m, const Finding&, std::string_view text, std::string& why) {
  Fix fix;
  size_t count = 0;
  for (const Graph& g : m.graphs)
    for (const Node& n : g.nodes) {
      if (n.op != "Convert" || n.outputs.empty()) continue;
      const std::string* to = n.attrs.find("destination_type");
      const ElemType want = to ? parse_ov_elem_type(*to).value_or(ElemType::Unknown) : ElemType::Unknown;
      const ElemType said = n.outputs[0].type().elem;
      if (!is_concrete(want) || !is_concrete(said) || said == want) continue;
      // The precision attribute inside the port's start tag.
      const int64_t at = n.outputs[0].loc(n).offset;
      const size_t tag_end = at < 0 ? std::string_view::npos : text.find('>', static_cast<size_t>(at));
      const size_t attr = at < 0 ? std::string_view::npos : text.find("precision=\"", static_cast<size_t>(at));
      if (at < 0 || text.compare(static_cast<size_t>(at), 5, "<port") != 0 || attr == std::string_view::npos ||
          attr > tag_end) {
        why = "the output port of Convert '" + n.display() + "' is not where the model says";
        return std::nullopt;
      }
      const size_t value = attr + 11, close = text.find('"', value);
      if (close == std::string_view::npos || close > tag_end) {
        why = "the precision of Convert '" + n.display() + "' cannot be read";
        return std::nullopt;
      }
      fix.text.push_back({static_cast<int64_t>(value), static_cast<int64_t>(close), precision_name(want)});
      ++count;
    }
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
