// ONNX loader, external data: where each tensor stored outside the model file leads (OnnxData::external_data, for
// ONNX014 and ONNX015), resolved against the model's directory without opening anything.
#include "loaders/onnx_builder.hpp"
#include "loaders/onnx_wire.hpp"

#include <onnx/onnx_pb.h>

#include <filesystem>

namespace condlint::onnx_build {

void OnnxBuilder::check_external(const onnx::TensorProto& t, int g, int n, const std::string& owner) {
  if (t.data_location() != onnx::TensorProto::EXTERNAL || is_mapped_payload(t)) return;
  using Place = OnnxExternalData::Place;
  OnnxExternalData e;
  e.owner = owner + " in " + where(g);
  e.loc = loc(g, n);
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") e.location = kv.value();
    else if (kv.key() == "offset" || kv.key() == "length") {
      int64_t v = 0;
      if (!parse_int64(kv.value(), v) || v < 0) e.bad_number = true;
      else (kv.key() == "offset" ? e.offset : e.length) = v;
    }
  }
  e.place = resolve_external(e.location, e.file_size);
  // A location that leaves the directory is an error there (ONNX014): onnx's checker is not asked about it again.
  if (e.place == Place::NoLocation || e.place == Place::LeavesDirectory || e.place == Place::LinkLeavesDirectory)
    taint(e.loc);
  data_->external_data.push_back(std::move(e));
}

OnnxExternalData::Place OnnxBuilder::resolve_external(const std::string& location, int64_t& file_size) {
  using Place = OnnxExternalData::Place;
  if (location.empty()) return Place::NoLocation;
  const fs::path rel(location);
  bool escapes =
      rel.is_absolute() || rel.has_root_name() || rel.has_root_directory() || location.find('\0') != std::string::npos;
  for (const auto& part : rel)
    if (part == "..") escapes = true;
  if (escapes) return Place::LeavesDirectory;
  std::error_code ec;
  if (!dir_canonical_) {
    dir_canonical_ = fs::canonical(dir_.empty() ? fs::path(".") : dir_, ec);
    if (ec) dir_canonical_ = dir_;
  }
  const fs::path full = (dir_.empty() ? fs::path(".") : dir_) / rel;
  model_->sources.insert(full.string());
  if (fs::is_symlink(full, ec) || fs::exists(full, ec)) {
    const fs::path real = fs::weakly_canonical(full, ec);
    if (!ec) {
      auto rit = real.begin();
      for (auto dit = dir_canonical_->begin(); dit != dir_canonical_->end(); ++dit, ++rit)
        if (rit == real.end() || *rit != *dit) return Place::LinkLeavesDirectory;
    }
  }
  if (!fs::is_regular_file(full, ec)) return Place::Missing;
  const auto size = fs::file_size(full, ec);
  file_size = ec ? -1 : static_cast<int64_t>(size);
  return Place::Present;
}

}  // namespace condlint::onnx_build
