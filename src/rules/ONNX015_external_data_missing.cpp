// ONNX015 external-data-missing: an external data file is missing or shorter than offset + length.
// The loader records each external data reference, whether its file is there and its size (OnnxData::external_data);
// the file itself is never read.
#include <map>
#include <string>
#include <vector>

#include "model/onnx_data.hpp"
#include "rules/engine.hpp"

namespace condlint::rules::ONNX015 {
void check(const condlint::Model& m, condlint::Reporter& r) {
  if (!m.onnx) return;
  using Place = condlint::OnnxExternalData::Place;
  // A missing file is one finding, however many tensors it should hold: at the first of them, naming how many.
  std::map<std::string, std::vector<const condlint::OnnxExternalData*>> missing;
  std::vector<std::string> missing_order;
  for (const auto& e : m.onnx->external_data) {
    if (e.place != Place::Missing && e.place != Place::Present) continue;  // ONNX014's
    if (e.bad_number) {
      r.report(e.loc, e.owner + ": external data 'offset' or 'length' is not a non-negative integer");
    } else if (e.place == Place::Missing) {
      auto& list = missing[e.location];
      if (list.empty()) missing_order.push_back(e.location);
      list.push_back(&e);
    } else if (e.file_size >= 0) {
      const auto size = static_cast<uint64_t>(e.file_size), offset = static_cast<uint64_t>(e.offset);
      if (offset > size || (e.length >= 0 && static_cast<uint64_t>(e.length) > size - offset))
        r.report(e.loc, e.owner + ": external data \"" + e.location + "\" needs bytes " + std::to_string(offset) +
                            ".." + std::to_string(offset + static_cast<uint64_t>(e.length >= 0 ? e.length : 0)) +
                            " but the file has " + std::to_string(size));
    }
  }
  constexpr size_t kOwnersNamed = 3;  // the tensors a message names before "and N more"
  for (const auto& location : missing_order) {
    const auto& list = missing[location];
    std::string owners;
    for (size_t i = 0; i < list.size() && i < kOwnersNamed; ++i) owners += (i ? ", " : "") + list[i]->owner;
    if (list.size() > kOwnersNamed) owners += " and " + std::to_string(list.size() - kOwnersNamed) + " more";
    r.report(list.front()->loc, "external data file \"" + location + "\" does not exist beside the model; " +
                                    std::to_string(list.size()) + (list.size() == 1 ? " tensor keeps its" : " tensors keep their") +
                                    " data there (" + owners + "); onnx's checker and ONNX Runtime refuse the model");
  }
}
}  // namespace condlint::rules::ONNX015

CONDLINT_RULE(ONNX015, "external-data-missing", Level::Error, kONNX,
              "An external data file is missing or shorter than offset + length", check)
