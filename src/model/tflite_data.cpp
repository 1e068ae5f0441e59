#include "model/tflite_data.hpp"

#include <array>
#include <string_view>

namespace condlint {
namespace tfl {
namespace {

// TensorType by number (schema version 3).
constexpr std::array<std::string_view, 19> kTypes = {
    "FLOAT32", "FLOAT16", "INT32",      "UINT8",  "INT64",    "STRING",  "BOOL",   "INT16",  "COMPLEX64", "INT8",
    "FLOAT64", "COMPLEX128", "UINT64", "RESOURCE", "VARIANT", "UINT32", "UINT16", "INT4", "BFLOAT16"};

// BuiltinOperator by number: what the TFLite schema calls each operator.
constexpr std::array<std::string_view, 208> kOps = {
    "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D", "DEPTH_TO_SPACE", "DEQUANTIZE",
    "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED", "HASHTABLE_LOOKUP", "L2_NORMALIZATION", "L2_POOL_2D",
    "LOCAL_RESPONSE_NORMALIZATION", "LOGISTIC", "LSH_PROJECTION", "LSTM", "MAX_POOL_2D", "MUL", "RELU",
    "RELU_N1_TO_1", "RELU6", "RESHAPE", "RESIZE_BILINEAR", "RNN", "SOFTMAX", "SPACE_TO_DEPTH", "SVDF", "TANH",
    "CONCAT_EMBEDDINGS", "SKIP_GRAM", "CALL", "CUSTOM", "EMBEDDING_LOOKUP_SPARSE", "PAD",
    "UNIDIRECTIONAL_SEQUENCE_RNN", "GATHER", "BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND", "TRANSPOSE", "MEAN", "SUB",
    "DIV", "SQUEEZE", "UNIDIRECTIONAL_SEQUENCE_LSTM", "STRIDED_SLICE", "BIDIRECTIONAL_SEQUENCE_RNN", "EXP",
    "TOPK_V2", "SPLIT", "LOG_SOFTMAX", "DELEGATE", "BIDIRECTIONAL_SEQUENCE_LSTM", "CAST", "PRELU", "MAXIMUM",
    "ARG_MAX", "MINIMUM", "LESS", "NEG", "PADV2", "GREATER", "GREATER_EQUAL", "LESS_EQUAL", "SELECT", "SLICE", "SIN",
    "TRANSPOSE_CONV", "SPARSE_TO_DENSE", "TILE", "EXPAND_DIMS", "EQUAL", "NOT_EQUAL", "LOG", "SUM", "SQRT", "RSQRT",
    "SHAPE", "POW", "ARG_MIN", "FAKE_QUANT", "REDUCE_PROD", "REDUCE_MAX", "PACK", "LOGICAL_OR", "ONE_HOT",
    "LOGICAL_AND", "LOGICAL_NOT", "UNPACK", "REDUCE_MIN", "FLOOR_DIV", "REDUCE_ANY", "SQUARE", "ZEROS_LIKE", "FILL",
    "FLOOR_MOD", "RANGE", "RESIZE_NEAREST_NEIGHBOR", "LEAKY_RELU", "SQUARED_DIFFERENCE", "MIRROR_PAD", "ABS",
    "SPLIT_V", "UNIQUE", "CEIL", "REVERSE_V2", "ADD_N", "GATHER_ND", "COS", "WHERE", "RANK", "ELU",
    "REVERSE_SEQUENCE", "MATRIX_DIAG", "QUANTIZE", "MATRIX_SET_DIAG", "ROUND", "HARD_SWISH", "IF", "WHILE",
    "NON_MAX_SUPPRESSION_V4", "NON_MAX_SUPPRESSION_V5", "SCATTER_ND", "SELECT_V2", "DENSIFY", "SEGMENT_SUM",
    "BATCH_MATMUL", "PLACEHOLDER_FOR_GREATER_OP_CODES", "CUMSUM", "CALL_ONCE", "BROADCAST_TO", "RFFT2D", "CONV_3D",
    "IMAG", "REAL", "COMPLEX_ABS", "HASHTABLE", "HASHTABLE_FIND", "HASHTABLE_IMPORT", "HASHTABLE_SIZE", "REDUCE_ALL",
    "CONV_3D_TRANSPOSE", "VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE", "BROADCAST_ARGS",
    "RANDOM_STANDARD_NORMAL", "BUCKETIZE", "RANDOM_UNIFORM", "MULTINOMIAL", "GELU", "DYNAMIC_UPDATE_SLICE",
    "RELU_0_TO_1", "UNSORTED_SEGMENT_PROD", "UNSORTED_SEGMENT_MAX", "UNSORTED_SEGMENT_SUM", "ATAN2",
    "UNSORTED_SEGMENT_MIN", "SIGN", "BITCAST", "BITWISE_XOR", "RIGHT_SHIFT", "STABLEHLO_LOGISTIC", "STABLEHLO_ADD",
    "STABLEHLO_DIVIDE", "STABLEHLO_MULTIPLY", "STABLEHLO_MAXIMUM", "STABLEHLO_RESHAPE", "STABLEHLO_CLAMP",
    "STABLEHLO_CONCATENATE", "STABLEHLO_BROADCAST_IN_DIM", "STABLEHLO_CONVOLUTION", "STABLEHLO_SLICE",
    "STABLEHLO_CUSTOM_CALL", "STABLEHLO_REDUCE", "STABLEHLO_ABS", "STABLEHLO_AND", "STABLEHLO_COSINE",
    "STABLEHLO_EXPONENTIAL", "STABLEHLO_FLOOR", "STABLEHLO_LOG", "STABLEHLO_MINIMUM", "STABLEHLO_NEGATE",
    "STABLEHLO_OR", "STABLEHLO_POWER", "STABLEHLO_REMAINDER", "STABLEHLO_RSQRT", "STABLEHLO_SELECT",
    "STABLEHLO_SUBTRACT", "STABLEHLO_TANH", "STABLEHLO_SCATTER", "STABLEHLO_COMPARE", "STABLEHLO_CONVERT",
    "STABLEHLO_DYNAMIC_SLICE", "STABLEHLO_DYNAMIC_UPDATE_SLICE", "STABLEHLO_PAD", "STABLEHLO_IOTA",
    "STABLEHLO_DOT_GENERAL", "STABLEHLO_REDUCE_WINDOW", "STABLEHLO_SORT", "STABLEHLO_WHILE", "STABLEHLO_GATHER",
    "STABLEHLO_TRANSPOSE", "DILATE", "STABLEHLO_RNG_BIT_GENERATOR", "REDUCE_WINDOW", "STABLEHLO_COMPOSITE",
    "COMPLEX"};

}  // namespace

std::string dims_text(const std::vector<int32_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

std::string type_name(int32_t t) {
  if (t >= 0 && t < static_cast<int32_t>(kTypes.size())) return std::string(kTypes[static_cast<size_t>(t)]);
  return "type " + std::to_string(t);
}

std::string op_name(int32_t op) {
  if (op >= 0 && op < static_cast<int32_t>(kOps.size())) return std::string(kOps[static_cast<size_t>(op)]);
  return "operator " + std::to_string(op);
}

ElemType elem_type(int32_t t) {
  switch (t) {
    case FLOAT32: return ElemType::F32;
    case FLOAT16: return ElemType::F16;
    case BFLOAT16: return ElemType::BF16;
    case FLOAT64: return ElemType::F64;
    case INT32: return ElemType::I32;
    case UINT8: return ElemType::U8;
    case INT64: return ElemType::I64;
    case STRING: return ElemType::String;
    case BOOL: return ElemType::Boolean;
    case INT16: return ElemType::I16;
    case INT8: return ElemType::I8;
    case INT4: return ElemType::I4;
    case COMPLEX64: return ElemType::Complex64;
    case COMPLEX128: return ElemType::Complex128;
    case UINT64: return ElemType::U64;
    case UINT32: return ElemType::U32;
    case UINT16: return ElemType::U16;
    default: return ElemType::Unknown;  // RESOURCE, VARIANT: handles, no element type
  }
}

}  // namespace tfl

std::string TfliteData::describe(size_t g, int32_t t) const {
  const TflTensor* x = tensor(g, t);
  if (!x) return "tensor " + std::to_string(t) + " (no such tensor)";
  std::string s = "tensor " + std::to_string(t) + (x->name.empty() ? "" : " '" + x->name + "'") + " " +
                  tfl::type_name(x->type) + " ";
  if (x->rank_over_limit) return s + "[rank over the limit]";
  const auto& dims = x->shape_signature && x->shape_signature->size() == x->shape.size() ? *x->shape_signature
                                                                                        : x->shape;
  return s + tfl::dims_text(dims);
}

std::string TfliteData::subgraph_label(size_t g) const {
  std::string s = "subgraph " + std::to_string(g);
  if (g < subgraphs.size() && !subgraphs[g].name.empty()) s += " '" + subgraphs[g].name + "'";
  return s;
}

}  // namespace condlint
