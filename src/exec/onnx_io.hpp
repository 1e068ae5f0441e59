// ONNX protobuf <-> executor values, model parsing, golden data in the backend-test layout (.pb and .npy).
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>
#include <onnx/onnx-data.pb.h>

#include "exec/tensor.hpp"

namespace condlint {
struct Model;
}  // namespace condlint

namespace condlint::exec {

// Parses a serialized protobuf message with a raised, bounded recursion limit. Returns an error text or "".
std::string parse_proto(const std::string& bytes, google::protobuf::MessageLite& msg, int recursion_limit = 256);
std::string read_file_bytes(const std::filesystem::path& p, std::string& out, int64_t max_bytes = 1LL << 31);

Tensor tensor_from_proto(const onnx::TensorProto& tp);  // throws ExecError

// The external data references lint let through: location as written -> its file's size.
struct ExternalDataList {
  std::map<std::string, int64_t> files;
};

// The list for a model the front door loaded: its external data references the loader's checks let through.
ExternalDataList external_data_list(const condlint::Model& m);
// Every tensor of `m` (initializers and attribute tensors, in every graph and model-local function) that keeps its
// data in an external file of `allowed` is given its bytes inline (raw_data): the model written out for another
// runtime in another folder (`diff`) then needs no file beside it. "" or why not (a file lint refused, too short,
// changed since it was measured).
std::string inline_external_data(onnx::ModelProto& m, const ExternalDataList& allowed,
                                 const std::filesystem::path& model_path);

// The external data files the model's tensors may be read from while it runs on this thread: those lint's checks
// let through (OnnxData::external_data: inside the model's folder, a regular file, offset and length within it;
// ONNX014 and ONNX015 report the others). tensor_from_proto reads an external tensor from its file's mapping by
// offset and length (never copying the file); one outside the list is refused, naming the rule. One scope per run
// (run_onnx opens it).
class ExternalDataScope {
 public:
  ExternalDataScope(const ExternalDataList& allowed, const std::filesystem::path& model_path);
  ~ExternalDataScope();
  ExternalDataScope(const ExternalDataScope&) = delete;
  ExternalDataScope& operator=(const ExternalDataScope&) = delete;

 private:
  const void* previous_;
};

void tensor_to_proto(const Tensor& t, onnx::TensorProto& tp);
Value value_from_sequence(const onnx::SequenceProto& sp);
Value value_from_optional(const onnx::OptionalProto& op);

// Reads one .pb golden file as the message the declared type calls for (tensor, sequence, optional).
// `type` may be null (then a TensorProto is assumed).
Value read_pb_value(const std::string& bytes, const onnx::TypeProto* type);
// Writes a value as the message its kind calls for.
std::string write_pb_value(const Value& v, const std::string& name);

// .npy (NumPy format 1.0/2.0/3.0; little- or big-endian numbers, bool, and fixed-width unicode strings).
Value read_npy(const std::string& bytes);
// A golden value file of the backend-test layout as the IR and TFLite drivers read them: .npy, else a .pb tensor
// (ExecError naming the file when it cannot be read).
Value read_golden(const std::filesystem::path& p);
std::string write_npy(const Tensor& t);

// Why a golden data file cannot be used, or "" when it is a regular file that holds data: it is not a regular file
// (a FIFO, a directory, a device, a socket), a symbolic link that leads nowhere (an un-fetched git-annex checkout), a
// file that cannot be opened, or a git-LFS or git-annex pointer file in place of the data. The sentence names the
// file by its name ("output_0.pb is a FIFO, not a regular file"). Nothing but a regular file is opened, and that
// without waiting (O_NONBLOCK): no FIFO or device is ever read.
std::string golden_file_problem(const std::filesystem::path& p);

// One golden data set: test_data_set_N with input_K / output_K (.pb or .npy) and optional pins.json.
struct DataSet {
  std::filesystem::path dir;
  std::vector<std::filesystem::path> inputs, outputs;  // index K -> file ("" when absent or unusable)
  std::map<std::string, bool> pins;                    // node path -> condition value
  std::string pins_error;                              // pins.json unreadable
  // Files named input_K / output_K that cannot be used (golden_file_problem), in name order; the set fails with the
  // first. `error`: the set's directory itself cannot be read (a dangling symbolic link).
  std::vector<std::string> input_problems, output_problems;
  std::string error;
  // Why the set cannot be run: its error, else its first unusable input, else (with `outputs_too`) its first
  // unusable golden output; "" when none.
  std::string problem(bool outputs_too = true) const;
};
// Lists data sets: `dir` is either a test_data_set_N itself or a directory holding test_data_set_* (sorted
// numerically).
std::vector<DataSet> find_data_sets(const std::filesystem::path& dir);
// Writes pins.json content.
std::string pins_json(const std::map<std::string, bool>& pins);

}  // namespace condlint::exec
