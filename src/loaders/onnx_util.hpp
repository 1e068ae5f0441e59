// Conversions from onnx protobuf types to condlint's types, and a wire-format scan that says where
// bytes stop being a valid protobuf message. Used by the ONNX loader and the ONNX tests.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/types.hpp"

namespace onnx {
class TypeProto;
}

namespace condlint {

// TensorProto::DataType -> ElemType (Unknown for UNDEFINED and values this build does not know).
ElemType onnx_elem_type(int32_t data_type);
// TypeProto -> TypeDesc, iteratively; nesting deeper than 64 levels ends in Kind::Unknown.
TypeDesc onnx_type_desc(const onnx::TypeProto& t);
// How deeply a type nests (tensor = 1, sequence(tensor) = 2, ...), counted iteratively.
int onnx_type_depth(const onnx::TypeProto& t);
// onnx's string for a tensor type and sequences and optionals of one ("tensor(float)", "optional(seq(tensor(int64)))"),
// as in If's type constraints; built iteratively, without onnx's process-wide type table (which DataTypeUtils::ToType
// grows by every string it makes). Empty for maps, sparse tensors, unset types and unknown element types.
std::string onnx_type_string(const onnx::TypeProto& t);
// The shape of a tensor or sparse tensor type; unknown rank for other kinds or when absent.
// dim_param and unset dims are dynamic.
Shape onnx_shape(const onnx::TypeProto& t);

struct WireScan {
  int64_t offset = -1;  // where the first problem starts; -1 when the top level scans clean
  std::string error;
};
// Scans the top-level fields of a serialized message (tags, varints, lengths) without recursion.
WireScan scan_wire(std::string_view bytes, int max_depth);

}  // namespace condlint
