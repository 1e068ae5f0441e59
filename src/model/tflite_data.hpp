// TFLite-specific facts recorded by the TFLite loader (loaders/tflite_loader.cpp) for the TFLite rules (TFL*): the
// flatbuffer's subgraphs, tensors and operators as the file states them, numbers as the format writes them, with the
// byte offset of every table. The loader records; the rules decide.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/model.hpp"

namespace condlint {
namespace io {
class MappedFile;
}  // namespace io

// The numbers of TFLite's schema (schema version 3) that condlint names.
namespace tfl {
enum TensorType : int32_t {
  FLOAT32 = 0,
  FLOAT16 = 1,
  INT32 = 2,
  UINT8 = 3,
  INT64 = 4,
  STRING = 5,
  BOOL = 6,
  INT16 = 7,
  COMPLEX64 = 8,
  INT8 = 9,
  FLOAT64 = 10,
  COMPLEX128 = 11,
  UINT64 = 12,
  RESOURCE = 13,
  VARIANT = 14,
  UINT32 = 15,
  UINT16 = 16,
  INT4 = 17,
  BFLOAT16 = 18,
};
// BuiltinOperator numbers of the control-flow operators (the rest are named by op_name's table).
constexpr int32_t kCall = 31, kCustom = 32, kIf = 118, kWhile = 119, kCallOnce = 129, kStablehloWhile = 200;
// An OperatorCode writes its operator in `deprecated_builtin_code` (a byte) below this number and in `builtin_code`
// from it on; readers take the larger of the two.
constexpr int32_t kPlaceholderForGreaterOpCodes = 127;
// The schema version every reader since 2018 writes and reads.
constexpr uint32_t kSchemaVersion = 3;

std::string type_name(int32_t t);  // "FLOAT32", "BOOL"; "type 42" outside the table
std::string op_name(int32_t op);   // "IF", "FULLY_CONNECTED"; "operator 300" outside the table
std::string dims_text(const std::vector<int32_t>& d);  // "[1,-1,4]"
ElemType elem_type(int32_t t);     // the unified model's element type (Unknown outside the table)
}  // namespace tfl

struct TflTensor {
  std::string name;
  int32_t type = tfl::FLOAT32;
  std::vector<int32_t> shape;
  std::optional<std::vector<int32_t>> shape_signature;  // -1: a dimension known only at run time
  bool has_rank = false;  // stated: a shape [] with has_rank false is a scalar to the interpreter, of unknown rank to
                          // a reader that honours the flag
  uint32_t buffer = 0;
  bool constant = false;  // its buffer holds data (in the flatbuffer, or at offset/size past it)
  bool is_variable = false;
  bool rank_over_limit = false;  // more than kMaxRank dimensions: not built (C013)
  int64_t offset = -1;           // the table's byte offset in the file
};

struct TflOperator {
  uint32_t opcode_index = 0;
  int32_t op = -1;     // the resolved BuiltinOperator; -1 when opcode_index is out of range
  std::string custom;  // a CUSTOM operator's custom_code
  int32_t version = 1;
  std::vector<int32_t> inputs, outputs;  // tensor indexes as written (-1: an optional input left out)
  uint8_t options_type = 0;              // the BuiltinOptions union member written (0: none)
  // The subgraphs the operator names, as written: IF then/else, WHILE cond/body, CALL_ONCE init. `has_refs` false
  // when the operator is IF or WHILE but its options are not IfOptions / WhileOptions.
  std::vector<std::pair<std::string, int32_t>> refs;
  bool has_refs = false;
  // The options of the operators condlint runs, by the schema's field names ("fused_activation_function" -> "RELU",
  // "axis" -> "1", "new_shape" -> "1,-1"), as written or as the schema's defaults fill them in; what Node::attrs
  // carries for the executor.
  std::vector<std::pair<std::string, std::string>> options;
  int64_t offset = -1;
};

// Where a buffer's bytes lie in the file: a flatbuffer vector, or (a model past 2 GiB) an offset and size the buffer
// states, which the reader checks against the file before it reads them.
struct TflBuffer {
  int64_t offset = -1;  // -1: no data
  uint64_t size = 0;
};

struct TflSubgraph {
  std::string name;
  std::vector<TflTensor> tensors;
  std::vector<int32_t> inputs, outputs;
  std::vector<TflOperator> ops;
  int64_t offset = -1;
};

// A problem found while reading the file (TFL001 reports them): bytes that are no valid TFLite flatbuffer, or a
// size past condlint's limits. Nothing of the model is built after one.
struct TflProblem {
  std::string message;
  SourceLocation loc;
};

struct TfliteData {
  std::vector<TflProblem> problems;  // non-empty: the file could not be read as a model; the model rules stay silent
  uint32_t version = 0;
  std::string description;
  size_t buffer_count = 0;
  std::vector<TflBuffer> buffers;
  // 0 = the main subgraph; the same numbering as Model::graphs.
  std::vector<TflSubgraph> subgraphs;
  // Signature defs: key -> the subgraph it runs (an entry point besides the main subgraph).
  std::vector<std::pair<std::string, uint32_t>> signatures;
  std::shared_ptr<const io::MappedFile> file;  // the mapped file (constants are read from it, never copied)

  bool valid() const { return problems.empty() && !subgraphs.empty(); }
  // The tensor `t` of subgraph `g`, or null when either index is out of range.
  const TflTensor* tensor(size_t g, int32_t t) const {
    if (g >= subgraphs.size() || t < 0 || static_cast<size_t>(t) >= subgraphs[g].tensors.size()) return nullptr;
    return &subgraphs[g].tensors[static_cast<size_t>(t)];
  }
  // "tensor 3 'x' FLOAT32 [1,4]" ("[1,-1]" with a run-time dim from its shape_signature).
  std::string describe(size_t g, int32_t t) const;
  // "subgraph 2 'cond_true_7'"
  std::string subgraph_label(size_t g) const;
};

}  // namespace condlint
