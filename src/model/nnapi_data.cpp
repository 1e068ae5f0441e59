#include "model/nnapi_data.hpp"

#include <array>
#include <cmath>
#include <cstdio>

namespace condlint::nn {

namespace {
constexpr std::array<std::string_view, 16> kTypes{"FLOAT32",
                                                  "INT32",
                                                  "UINT32",
                                                  "TENSOR_FLOAT32",
                                                  "TENSOR_INT32",
                                                  "TENSOR_QUANT8_ASYMM",
                                                  "BOOL",
                                                  "TENSOR_QUANT16_SYMM",
                                                  "TENSOR_FLOAT16",
                                                  "TENSOR_BOOL8",
                                                  "FLOAT16",
                                                  "TENSOR_QUANT8_SYMM_PER_CHANNEL",
                                                  "TENSOR_QUANT16_ASYMM",
                                                  "TENSOR_QUANT8_SYMM",
                                                  "TENSOR_QUANT8_ASYMM_SIGNED",
                                                  "SUBGRAPH"};
constexpr std::array<std::string_view, 7> kLifetimes{
    "TEMPORARY_VARIABLE", "SUBGRAPH_INPUT", "SUBGRAPH_OUTPUT", "CONSTANT_COPY",
    "CONSTANT_REFERENCE", "NO_VALUE",       "SUBGRAPH"};
constexpr std::array<std::string_view, 106> kOps{"ADD",
                                                 "AVERAGE_POOL_2D",
                                                 "CONCATENATION",
                                                 "CONV_2D",
                                                 "DEPTHWISE_CONV_2D",
                                                 "DEPTH_TO_SPACE",
                                                 "DEQUANTIZE",
                                                 "EMBEDDING_LOOKUP",
                                                 "FLOOR",
                                                 "FULLY_CONNECTED",
                                                 "HASHTABLE_LOOKUP",
                                                 "L2_NORMALIZATION",
                                                 "L2_POOL_2D",
                                                 "LOCAL_RESPONSE_NORMALIZATION",
                                                 "LOGISTIC",
                                                 "LSH_PROJECTION",
                                                 "LSTM",
                                                 "MAX_POOL_2D",
                                                 "MUL",
                                                 "RELU",
                                                 "RELU1",
                                                 "RELU6",
                                                 "RESHAPE",
                                                 "RESIZE_BILINEAR",
                                                 "RNN",
                                                 "SOFTMAX",
                                                 "SPACE_TO_DEPTH",
                                                 "SVDF",
                                                 "TANH",
                                                 "BATCH_TO_SPACE_ND",
                                                 "DIV",
                                                 "MEAN",
                                                 "PAD",
                                                 "SPACE_TO_BATCH_ND",
                                                 "SQUEEZE",
                                                 "STRIDED_SLICE",
                                                 "SUB",
                                                 "TRANSPOSE",
                                                 "ABS",
                                                 "ARGMAX",
                                                 "ARGMIN",
                                                 "AXIS_ALIGNED_BBOX_TRANSFORM",
                                                 "BIDIRECTIONAL_SEQUENCE_LSTM",
                                                 "BIDIRECTIONAL_SEQUENCE_RNN",
                                                 "BOX_WITH_NMS_LIMIT",
                                                 "CAST",
                                                 "CHANNEL_SHUFFLE",
                                                 "DETECTION_POSTPROCESSING",
                                                 "EQUAL",
                                                 "EXP",
                                                 "EXPAND_DIMS",
                                                 "GATHER",
                                                 "GENERATE_PROPOSALS",
                                                 "GREATER",
                                                 "GREATER_EQUAL",
                                                 "GROUPED_CONV_2D",
                                                 "HEATMAP_MAX_KEYPOINT",
                                                 "INSTANCE_NORMALIZATION",
                                                 "LESS",
                                                 "LESS_EQUAL",
                                                 "LOG",
                                                 "LOGICAL_AND",
                                                 "LOGICAL_NOT",
                                                 "LOGICAL_OR",
                                                 "LOG_SOFTMAX",
                                                 "MAXIMUM",
                                                 "MINIMUM",
                                                 "NEG",
                                                 "NOT_EQUAL",
                                                 "PAD_V2",
                                                 "POW",
                                                 "PRELU",
                                                 "QUANTIZE",
                                                 "QUANTIZED_16BIT_LSTM",
                                                 "RANDOM_MULTINOMIAL",
                                                 "REDUCE_ALL",
                                                 "REDUCE_ANY",
                                                 "REDUCE_MAX",
                                                 "REDUCE_MIN",
                                                 "REDUCE_PROD",
                                                 "REDUCE_SUM",
                                                 "ROI_ALIGN",
                                                 "ROI_POOLING",
                                                 "RSQRT",
                                                 "SELECT",
                                                 "SIN",
                                                 "SLICE",
                                                 "SPLIT",
                                                 "SQRT",
                                                 "TILE",
                                                 "TOPK_V2",
                                                 "TRANSPOSE_CONV_2D",
                                                 "UNIDIRECTIONAL_SEQUENCE_LSTM",
                                                 "UNIDIRECTIONAL_SEQUENCE_RNN",
                                                 "RESIZE_NEAREST_NEIGHBOR",
                                                 "QUANTIZED_LSTM",
                                                 "IF",
                                                 "WHILE",
                                                 "ELU",
                                                 "HARD_SWISH",
                                                 "FILL",
                                                 "RANK",
                                                 "BATCH_MATMUL",
                                                 "PACK",
                                                 "MIRROR_PAD",
                                                 "REVERSE"};

template <size_t N>
std::optional<int32_t> find(const std::array<std::string_view, N>& table, std::string_view s) {
  for (size_t i = 0; i < N; ++i)
    if (table[i] == s) return static_cast<int32_t>(i);
  return std::nullopt;
}
}  // namespace

std::string operand_type_name(int32_t t) {
  if (t >= 0 && t < static_cast<int32_t>(kTypes.size())) return std::string(kTypes[t]);
  return (is_extension(t) ? "extension type " : "operand type ") + std::to_string(t);
}
std::string lifetime_name(int32_t l) {
  if (l >= 0 && l < static_cast<int32_t>(kLifetimes.size())) return std::string(kLifetimes[l]);
  return "lifetime " + std::to_string(l);
}
std::string operation_name(int32_t op) {
  if (op >= 0 && op < static_cast<int32_t>(kOps.size())) return std::string(kOps[op]);
  return (is_extension(op) ? "extension operation " : "operation ") + std::to_string(op);
}
std::optional<int32_t> parse_operand_type(std::string_view s) { return find(kTypes, s); }
std::optional<int32_t> parse_lifetime(std::string_view s) {
  if (s == "CONSTANT_POOL") return CONSTANT_REFERENCE;
  return find(kLifetimes, s);
}
std::optional<int32_t> parse_operation(std::string_view s) { return find(kOps, s); }

bool is_scalar(int32_t t) {
  return t == FLOAT32 || t == INT32 || t == UINT32 || t == BOOL || t == FLOAT16 || t == SUBGRAPH;
}

unsigned element_size(int32_t t) {
  switch (t) {
    case FLOAT32:
    case INT32:
    case UINT32:
    case TENSOR_FLOAT32:
    case TENSOR_INT32: return 4;
    case TENSOR_QUANT16_SYMM:
    case TENSOR_FLOAT16:
    case FLOAT16:
    case TENSOR_QUANT16_ASYMM: return 2;
    case TENSOR_QUANT8_ASYMM:
    case BOOL:
    case TENSOR_BOOL8:
    case TENSOR_QUANT8_SYMM_PER_CHANNEL:
    case TENSOR_QUANT8_SYMM:
    case TENSOR_QUANT8_ASYMM_SIGNED: return 1;
    default: return 0;
  }
}

std::optional<uint64_t> byte_size(const NnOperand& o) {
  uint64_t size = element_size(o.type);
  if (is_scalar(o.type)) return size;
  if (o.dimensions.empty()) return 0;
  for (uint32_t d : o.dimensions) {
    if (d == 0) return 0;
    size *= d;
    if (size > 0xFFFFFFFFull) return std::nullopt;
  }
  return size;
}

bool has_unknown_size(const NnOperand& o) {
  if (is_extension(o.type) || is_scalar(o.type)) return false;
  if (o.dimensions.empty()) return true;
  for (uint32_t d : o.dimensions)
    if (d == 0) return true;
  return false;
}

bool is_constant(int32_t l) { return l == CONSTANT_COPY || l == CONSTANT_REFERENCE; }

ElemType elem_type(int32_t t) {
  switch (t) {
    case FLOAT32:
    case TENSOR_FLOAT32: return ElemType::F32;
    case INT32:
    case TENSOR_INT32: return ElemType::I32;
    case UINT32: return ElemType::U32;
    case TENSOR_QUANT8_ASYMM: return ElemType::U8;
    case BOOL:
    case TENSOR_BOOL8: return ElemType::Boolean;
    case TENSOR_QUANT16_SYMM: return ElemType::I16;
    case TENSOR_FLOAT16:
    case FLOAT16: return ElemType::F16;
    case TENSOR_QUANT8_SYMM_PER_CHANNEL:
    case TENSOR_QUANT8_SYMM:
    case TENSOR_QUANT8_ASYMM_SIGNED: return ElemType::I8;
    case TENSOR_QUANT16_ASYMM: return ElemType::U16;
    default: return ElemType::Unknown;
  }
}

std::string dims_str(const NnOperand& o) {
  if (is_scalar(o.type)) return o.dimensions.empty() ? "scalar" : "scalar with dimensions";
  if (o.dimensions.empty()) return "[] (unknown rank)";
  std::string s = "[";
  for (size_t i = 0; i < o.dimensions.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(o.dimensions[i]);
  }
  return s + "]";
}

static std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string describe_operand(const NnOperand& o) {
  std::string s = operand_type_name(o.type);
  if (!is_scalar(o.type) || !o.dimensions.empty()) {
    s += ' ';
    s += o.dimensions.empty() ? std::string("[]") : dims_str(o);
  }
  if (o.scale != 0 || o.zero_point != 0) s += " scale " + num(o.scale) + " zeroPoint " + std::to_string(o.zero_point);
  if (o.extra == NnOperand::Extra::ChannelQuant) {
    s += " channelQuant{dim " + std::to_string(o.channel_dim) + ", scales [";
    for (size_t i = 0; i < o.channel_scales.size() && i < 8; ++i) s += (i ? "," : "") + num(o.channel_scales[i]);
    if (o.channel_scales.size() > 8) s += ",...";
    s += "]}";
  } else if (o.extra == NnOperand::Extra::Extension) {
    s += " extension params (" + std::to_string(o.extension_bytes.size()) + " bytes)";
  }
  return s;
}

bool to_half(double v, uint16_t& out) {
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  double a = std::fabs(v);
  if (a == 0) {
    out = sign;
    return true;
  }
  if (a < std::ldexp(1.0, -14)) {  // subnormal (rounds up into the smallest normal if needed)
    const double q = std::nearbyint(a / std::ldexp(1.0, -24));
    out = static_cast<uint16_t>(sign | static_cast<uint16_t>(q));
    return true;
  }
  int e = 0;
  const double m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  int E = e - 1;
  double q = std::nearbyint((m * 2 - 1) * 1024);
  if (q >= 1024) {
    q = 0;
    ++E;
  }
  if (E > 15) return false;
  out = static_cast<uint16_t>(sign | ((E + 15) << 10) | static_cast<uint16_t>(q));
  return true;
}

}  // namespace condlint::nn
