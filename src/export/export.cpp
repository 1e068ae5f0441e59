// `condlint export`: dispatch by the model's format, the ONNX pass-through, and the golden data that goes with an
// export.
#include "export/export.hpp"
#include "io/output.hpp"

#include <fstream>

#include "onnx_graph/if_sites.hpp"
#include "exec/onnx_io.hpp"
#include "exec/runner.hpp"
#include "loaders/onnx_wire.hpp"
#include "model/onnx_data.hpp"

namespace condlint::xport {

namespace {

ExportResult export_onnx(const Model& model, const fs::path& path, const ExportOptions& o) {
  ExportResult r;
  // The parsed protobuf open_model kept, or why it could not be parsed.
  if (!model.onnx || !model.onnx->proto) {
    r.error = path.string() + ": " +
              (model.onnx && !model.onnx->proto_error.empty() ? model.onnx->proto_error
                                                              : std::string("the parsed model was not kept"));
    r.problems.push_back(r.error);
    return r;
  }
  r.model = *model.onnx->proto;
  // Weights the loader left in the mapped file go back into the model written out.
  if (std::string err; model.onnx->payload_file && !restore_mapped_payloads(r.model, err)) {
    r.error = path.string() + ": " + err;
    r.problems.push_back(r.error);
    return r;
  }
  for (const auto& s : onnx_graph::find_ifs(r.model)) r.if_paths[s.path] = s.path;
  if (!o.pins.empty()) {
    for (const auto& [p, v] : o.pins)
      if (!r.if_paths.count(p)) r.problems.push_back("pin '" + p + "' names no If of the model");
    if (!r.problems.empty()) return r;
    onnx::ModelProto pinned;
    if (auto e = onnx_graph::pin_model(r.model, o.pins, pinned); !e.empty()) {
      r.problems.push_back("cannot pin: " + e);
      return r;
    }
    r.model = std::move(pinned);
    r.notes.push_back("pinned: " + onnx_graph::pins_label(o.pins));
  }
  return r;
}

bool write_bytes(const fs::path& p, const std::string& bytes) {
  return io::write_file(p.string(), p.filename().string(), [&](std::ostream& f) { f << bytes; }).empty();
}

}  // namespace

ExportResult export_model(const Model& model, const fs::path& path, const ExportOptions& o) {
  if (std::string why = exec::readability_of(model); !why.empty()) {  // one verdict with lint's
    ExportResult r;
    r.error = path.string() + ": " + why;
    r.problems.push_back(r.error);
    return r;
  }
  using Exporter = ExportResult (*)(const Model&, const fs::path&, const ExportOptions&);
  constexpr std::pair<Format, Exporter> kExporters[] = {
      {Format::IR, export_ir},
      {Format::NNAPI, export_nnapi},
      {Format::ONNX, export_onnx},
  };
  for (const auto& [format, exporter] : kExporters)
    if (format == model.format) return exporter(model, path, o);
  ExportResult r;
  r.error = path.string() + ": not a model condlint exports (.xml, .nnapi.json, .onnx)";
  r.problems.push_back(r.error);
  return r;
}

std::string write_data_sets(const fs::path& model, const ExportResult& r, const fs::path& dir, int* written) {
  if (written) *written = 0;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return "cannot create " + dir.string() + ": " + ec.message();
  int index = 0;
  auto set_dir = [&]() -> std::string {
    const fs::path d = dir / ("test_data_set_" + std::to_string(index));
    fs::create_directories(d, ec);
    return ec ? std::string() : d.string();
  };
  try {
    if (!r.data_sets.empty()) {
      for (const auto& ds : r.data_sets) {
        const std::string d = set_dir();
        if (d.empty()) return "cannot create a data set directory under " + dir.string();
        for (size_t k = 0; k < ds.inputs.size(); ++k)
          if (!write_bytes(fs::path(d) / ("input_" + std::to_string(k) + ".pb"),
                           exec::write_pb_value(ds.inputs[k], "input_" + std::to_string(k))))
            return "cannot write " + d;
        for (size_t k = 0; k < ds.outputs.size(); ++k)
          if (ds.outputs[k].kind != exec::Value::Kind::None &&
              !write_bytes(fs::path(d) / ("output_" + std::to_string(k) + ".pb"),
                           exec::write_pb_value(ds.outputs[k], "output_" + std::to_string(k))))
            return "cannot write " + d;
        if (!ds.pins.empty() && !write_bytes(fs::path(d) / "pins.json", exec::pins_json(ds.pins)))
          return "cannot write " + d;
        ++index;
      }
    } else {
      const fs::path src = model.parent_path().empty() ? fs::path(".") : model.parent_path();
      for (const auto& ds : exec::find_data_sets(src)) {
        if (!ds.pins_error.empty()) return ds.dir.string() + ": " + ds.pins_error;
        if (std::string why = ds.problem(); !why.empty()) return ds.dir.string() + ": " + why;
        const std::string d = set_dir();
        if (d.empty()) return "cannot create a data set directory under " + dir.string();
        auto copy = [&](const std::vector<fs::path>& files, const char* stem) -> std::string {
          for (size_t k = 0; k < files.size(); ++k) {
            if (files[k].empty()) continue;
            std::string bytes;
            if (auto e = exec::read_file_bytes(files[k], bytes); !e.empty()) return e;
            if (files[k].extension() == ".npy")
              bytes = exec::write_pb_value(exec::read_npy(bytes), stem + std::to_string(k));
            if (!write_bytes(fs::path(d) / (stem + std::to_string(k) + ".pb"), bytes)) return "cannot write " + d;
          }
          return "";
        };
        if (auto e = copy(ds.inputs, "input_"); !e.empty()) return e;
        if (auto e = copy(ds.outputs, "output_"); !e.empty()) return e;
        if (!ds.pins.empty()) {
          std::map<std::string, bool> pins;
          for (const auto& [p, v] : ds.pins) {
            auto it = r.if_paths.find(p);
            pins[it == r.if_paths.end() ? p : it->second] = v;
          }
          if (!write_bytes(fs::path(d) / "pins.json", exec::pins_json(pins))) return "cannot write " + d;
        }
        ++index;
      }
    }
  } catch (const std::exception& e) {
    return std::string("cannot write the data sets: ") + e.what();
  }
  if (written) *written = index;
  return "";
}

}  // namespace condlint::xport
