// IR020 convert-port-precision: a Convert's output port states another element type than its destination_type.
//
// OpenVINO infers a Convert's output type from destination_type and never reads the port's precision, and its own
// serializer writes such ports: `save_model(..., compress_to_fp16=True)` (the default) keeps FP16 on the output ports
// of the decompression Converts it inserts (rt_info `decompression`), which convert to f32. The Conditional view
// types a Convert's output by destination_type (loaders/ir_loader value_of), so C006/C007 judge what OpenVINO
// computes; this note says once per model that the file states otherwise.
#include "rules/engine.hpp"

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
  r.report(first->loc, msg);
}
}  // namespace condlint::rules::IR020

CONDLINT_RULE(IR020, "convert-port-precision", Level::Note, kIR,
              "A Convert's output port states another element type than its destination_type", check)
