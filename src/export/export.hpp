// `condlint export MODEL --to onnx -o OUT.onnx`: OpenVINO IR and NNAPI models (and their branch-pinned
// variants) as ONNX, so that runtimes that only read ONNX (ONNX Runtime, `cmd:` runtimes) can run them in
// `condlint diff`. An export either succeeds completely or says what it cannot express (an op, an element
// type, an attribute) — it never writes a model that computes something else.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "exec/tensor.hpp"
#include "model/model.hpp"

namespace condlint::xport {

namespace fs = std::filesystem;

struct ExportOptions {
  int64_t opset = 17;                // default ONNX opset of the exported model
  std::map<std::string, bool> pins;  // source-model If path (as `run --pin` names it) -> branch
};

// One golden data set carried over with the model (NNAPI examples; IR data sets are already ONNX-layout).
struct ExportedDataSet {
  std::string name;                  // e.g. "example_0"
  std::vector<exec::Value> inputs;   // by ONNX graph input index
  std::vector<exec::Value> outputs;  // by ONNX graph output index (empty when the source has none)
  std::map<std::string, bool> pins;  // ONNX If paths the data set needs (e.g. a NO_VALUE condition)
};

struct ExportResult {
  onnx::ModelProto model;
  std::vector<std::string> problems;  // non-empty: the export failed; each names the node and the reason
  std::vector<std::string> notes;     // lossless but worth saying (e.g. "relaxed float32 computed as float32")
  std::map<std::string, std::string> if_paths;  // source If path -> ONNX If path (as diff/run name them)
  std::vector<ExportedDataSet> data_sets;
  std::string error;  // the model could not be read at all (I/O, not a model): usage/IO, exit 2
  // Every ONNX copy of a source If (NNAPI: an IF inside a WHILE condition is evaluated once before the Loop and
  // once inside its body); if_paths holds the first. Pins apply to all copies.
  std::map<std::string, std::vector<std::string>> if_path_copies;
  bool ok() const { return problems.empty(); }
};

// The exporters take the Model open_model read from `path` (with keep_for_exec and lint's readability verdict);
// none opens a model file.
// OpenVINO IR (.xml + .bin beside it).
ExportResult export_ir(const Model& model, const fs::path& xml, const ExportOptions& o);
// NNAPI JSON model (.nnapi.json, docs/nnapi-json.md).
ExportResult export_nnapi(const Model& model, const fs::path& json, const ExportOptions& o);
// Refuses what lint cannot read, then dispatches on Model::format; an ONNX model is "exported" as itself (pins
// applied).
ExportResult export_model(const Model& model, const fs::path& path, const ExportOptions& o);

// Writes the golden data that goes with an export under `dir` as test_data_set_N/input_K.pb, output_K.pb
// (+ pins.json): r.data_sets when there are any (NNAPI examples), else the test_data_set_* beside the source
// model (IR, ONNX), .npy converted to .pb and pins.json renamed through r.if_paths. Returns "" or an error;
// `written` (optional) gets the number of data sets written.
std::string write_data_sets(const fs::path& model, const ExportResult& r, const fs::path& dir, int* written = nullptr);

}  // namespace condlint::xport
