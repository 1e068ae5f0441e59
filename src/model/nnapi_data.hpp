// NNAPI-specific facts recorded by the NNAPI loader for the NNAPI rules: the parsed document
// (docs/nnapi-json.md) with defaults filled in, the `value` shorthand packed into operandValues,
// and a SourceLocation (line, column, JSON pointer) on every element.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/model.hpp"

namespace condlint {

// A byte position with its line and column (for list elements, whose pointer is built on demand).
struct NnPos {
  int64_t offset = -1;
  int line = 0, column = 0;
};

// AIDL enumerations as numbers.
namespace nn {
enum OperandType : int32_t {
  FLOAT32 = 0,
  INT32 = 1,
  UINT32 = 2,
  TENSOR_FLOAT32 = 3,
  TENSOR_INT32 = 4,
  TENSOR_QUANT8_ASYMM = 5,
  BOOL = 6,
  TENSOR_QUANT16_SYMM = 7,
  TENSOR_FLOAT16 = 8,
  TENSOR_BOOL8 = 9,
  FLOAT16 = 10,
  TENSOR_QUANT8_SYMM_PER_CHANNEL = 11,
  TENSOR_QUANT16_ASYMM = 12,
  TENSOR_QUANT8_SYMM = 13,
  TENSOR_QUANT8_ASYMM_SIGNED = 14,
  SUBGRAPH = 15,
};
enum LifeTime : int32_t {
  TEMPORARY_VARIABLE = 0,
  SUBGRAPH_INPUT = 1,
  SUBGRAPH_OUTPUT = 2,
  CONSTANT_COPY = 3,
  CONSTANT_REFERENCE = 4,
  NO_VALUE = 5,
  SUBGRAPH_LT = 6,
};
constexpr int32_t kIf = 96, kWhile = 97;
}  // namespace nn

struct NnOperand {
  std::string name;
  int32_t type = 0;
  std::vector<uint32_t> dimensions;
  bool dims_over_limit = false;  // `dimensions` listed more than kMaxRank entries: not built, rank unknown (C013)
  double scale = 0;
  int32_t zero_point = 0;
  int32_t lifetime = 0;
  uint32_t pool_index = 0, offset = 0, length = 0;
  bool has_value = false;     // came from the `value` shorthand (location filled in by the loader)
  bool value_failed = false;  // `value` was given but could not be packed (NN004 says why)
  enum class Extra { None, ChannelQuant, Extension } extra = Extra::None;
  std::vector<double> channel_scales;
  uint32_t channel_dim = 0;
  std::string extension_bytes;
  std::optional<uint32_t> number_of_consumers;

  SourceLocation loc;  // the operand object
  // Each member's location; the operand's own location when the member was left out.
  SourceLocation type_loc, dimensions_loc, scale_loc, zero_point_loc, lifetime_loc, location_loc, value_loc, extra_loc,
      consumers_loc;
  std::vector<NnPos> dimension_pos;
};

struct NnOperation {
  int32_t type = 0;
  std::vector<uint32_t> inputs, outputs;
  SourceLocation loc, type_loc, inputs_loc, outputs_loc;
  std::vector<NnPos> input_pos, output_pos;
};

struct NnSubgraph {
  std::string name;
  std::string label;  // "main" or "referenced/2"
  std::vector<NnOperand> operands;
  std::vector<NnOperation> operations;
  std::vector<uint32_t> input_indexes, output_indexes;
  SourceLocation loc, inputs_loc, outputs_loc;
  std::vector<NnPos> input_pos, output_pos;
};

struct NnBlob {
  bool from_file = false;
  bool loaded = false;  // false when the file could not (or must not) be read
  std::string file;
  std::string bytes;
  SourceLocation loc;
};

struct NnValue {
  std::optional<std::vector<uint32_t>> dimensions;
  size_t data_count = 0;
  std::vector<double> data;  // the values (booleans as 0 and 1), when every entry is a number or a boolean
  bool is_null = false;
  SourceLocation loc;
};

struct NnExample {
  std::string name;
  std::vector<NnValue> inputs, outputs;
  bool expect_failure = false;
  SourceLocation loc;
};

// A problem found while reading the document; NN001-NN003 and NN010 report these.
struct NnProblem {
  enum class Kind { Malformed, Schema, Blob, Value } kind;
  std::string message;
  SourceLocation loc;
};

struct NnapiData {
  // False when the JSON is malformed or breaks the schema; the model rules then stay silent
  // (the document's structure cannot be trusted) and only the parse findings are reported.
  bool structurally_valid = false;
  std::vector<NnProblem> problems;
  std::string name;
  // 0 = main, i + 1 = referenced[i]: the same numbering as Model::graphs.
  std::vector<NnSubgraph> subgraphs;
  std::string operand_values;         // the Blob's bytes followed by the packed `value`s
  bool operand_values_loaded = true;  // false when the Blob's file could not be read
  SourceLocation operand_values_loc;
  std::vector<NnBlob> pools;
  bool relax_float32_to_float16 = false;
  std::vector<NnExample> examples;
  SourceLocation doc_loc;
  BranchFollowFacts branch_follow;  // operations that one branch of an IF breaks (C014)

  size_t referenced_count() const { return subgraphs.empty() ? 0 : subgraphs.size() - 1; }
  // A location for one element of a list member: base's pointer + suffix, at pos.
  static SourceLocation element(const SourceLocation& base, const std::string& suffix, const NnPos& pos) {
    SourceLocation l = base;
    l.pointer += suffix;
    if (pos.offset >= 0) {
      l.offset = pos.offset;
      l.line = pos.line;
      l.column = pos.column;
    }
    return l;
  }
};

}  // namespace condlint

namespace condlint::nn {

// Names of the AIDL enumerations ("TENSOR_FLOAT32", "CONSTANT_COPY", "IF"); numbers outside the
// tables come back as "extension type 65537" / "operation 123".
std::string operand_type_name(int32_t t);
std::string lifetime_name(int32_t l);
std::string operation_name(int32_t op);
// Name -> number (CONSTANT_POOL and CONSTANT_REFERENCE both give 4); nullopt when unknown.
std::optional<int32_t> parse_operand_type(std::string_view s);
std::optional<int32_t> parse_lifetime(std::string_view s);
std::optional<int32_t> parse_operation(std::string_view s);

inline bool is_extension(int32_t type) { return type >= 65536; }
// Scalar types: FLOAT32, INT32, UINT32, BOOL, FLOAT16, SUBGRAPH.
bool is_scalar(int32_t type);
// Bytes per element; 0 for SUBGRAPH and extension types.
unsigned element_size(int32_t type);
// The operand's byte size (element size x product of dimensions; 0 when a dimension or the rank is
// unknown); nullopt on overflow of 32 bits (Android's limit).
std::optional<uint64_t> byte_size(const NnOperand& o);
// A non-extension tensor whose rank or some dimension is unknown.
bool has_unknown_size(const NnOperand& o);
bool is_constant(int32_t lifetime);
// The element type the unified model uses.
ElemType elem_type(int32_t type);
// "TENSOR_QUANT8_ASYMM [2,0] scale 0.5 zeroPoint 128" (scalars without dims; quantisation only
// when it is not zero; extraParams when present).
std::string describe_operand(const NnOperand& o);
// IEEE-754 binary16 of v, rounded to nearest, ties to even; false when a finite v overflows.
bool to_half(double v, uint16_t& out);
// "[2,0]", "[] (unknown rank)", "scalar"
std::string dims_str(const NnOperand& o);

}  // namespace condlint::nn
