// ONNX015 external-data-missing: an external data file is missing or shorter than offset + length.
// The loader records each external data reference, whether its file is there and its size (OnnxData::external_data);
// the file itself is never read.
#include "model/onnx_data.hpp"
#include "rules/engine.hpp"

namespace condlint::rules::ONNX015 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  if (!m.onnx) return;
  using Place = condlint::OnnxExternalData::Place;
  for (const auto& e : m.onnx->external_data) {
    if (e.place != Place::Missing && e.place != Place::Present) continue;  // ONNX014's
    if (e.bad_number) {
      r.report(e.loc, e.owner + ": external data 'offset' or 'length' is not a non-negative integer");
    } else if (e.place == Place::Missing) {
      r.report(e.loc, e.owner + ": external data file \"" + e.location + "\" does not exist beside the model");
    } else if (e.file_size >= 0) {
      const auto size = static_cast<uint64_t>(e.file_size), offset = static_cast<uint64_t>(e.offset);
      if (offset > size || (e.length >= 0 && static_cast<uint64_t>(e.length) > size - offset))
        r.report(e.loc, e.owner + ": external data \"" + e.location + "\" needs bytes " + std::to_string(offset) +
                            ".." + std::to_string(offset + static_cast<uint64_t>(e.length >= 0 ? e.length : 0)) +
                            " but the file has " + std::to_string(size));
    }
  }
}
}  // namespace condlint::rules::ONNX015

CONDLINT_RULE(ONNX015, "external-data-missing", Level::Warning, kONNX,
              "An external data file is missing or shorter than offset + length", check)
