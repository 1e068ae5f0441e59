// Conversions from onnx protobuf types to condlint's types, the one reader of protobuf's wire format
// (for_each_wire_field), and the scan built on it that says where bytes stop being a valid protobuf message. Used by
// the ONNX loader and the ONNX tests.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/onnx_data.hpp"
#include "model/types.hpp"

namespace onnx {
class TypeProto;
}

namespace condlint {

// TensorProto::DataType -> ElemType (Unknown for UNDEFINED and values no onnx release defines).
ElemType onnx_elem_type(int32_t data_type);
// The name onnx's type strings give an element type newer than the linked onnx (17 -> "float8e4m3fn", 22 -> "int4"
// ... 28 -> "float6e3m2"); empty for the others. onnx_elem_number is its inverse (0: not such a name).
std::string_view onnx_elem_name(int32_t data_type);
int32_t onnx_elem_number(std::string_view name);
// TypeProto -> TypeDesc, iteratively; nesting deeper than 64 levels ends in Kind::Unknown.
TypeDesc onnx_type_desc(const onnx::TypeProto& t);
// How deeply a type nests (tensor = 1, sequence(tensor) = 2, ...), counted iteratively.
int onnx_type_depth(const onnx::TypeProto& t);
// The largest rank any tensor shape in `t` declares (sequence, optional and map element types included).
int64_t onnx_max_rank(const onnx::TypeProto& t);
// onnx's string for a tensor type and sequences and optionals of one ("tensor(float)", "optional(seq(tensor(int64)))"),
// as in If's type constraints; built iteratively, without onnx's process-wide type table (which DataTypeUtils::ToType
// grows by every string it makes). Empty for maps, sparse tensors, unset types and unknown element types.
std::string onnx_type_string(const onnx::TypeProto& t);
// The shape of a tensor or sparse tensor type; unknown rank for other kinds or when absent.
// dim_param and unset dims are dynamic.
Shape onnx_shape(const onnx::TypeProto& t);

// One field of a serialized protobuf message: its number, wire type, where it starts and ends in the message, and
// the payload of a length-delimited field (wire type 2).
struct WireField {
  uint64_t number = 0;
  unsigned wire = 0;
  size_t begin = 0, end = 0;
  std::string_view payload;
};

// A base-128 varint at b[pos]; advances pos. False when it runs past the end or over 10 bytes.
inline bool read_wire_varint(std::string_view b, size_t& pos, uint64_t& out) {
  out = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= b.size()) return false;
    const auto byte = static_cast<uint8_t>(b[pos++]);
    out |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return true;
  }
  return false;
}

// Where and why for_each_wire_field stopped before the end (what scan_wire words as a message).
struct WireStop {
  enum Kind { kNone, kTag, kFieldZero, kInteger, kFixed, kLength, kPastEnd, kWireType } kind = kNone;
  size_t begin = 0;     // where the field that could not be read starts
  uint64_t field = 0;   // its number (kInteger and after)
  unsigned wire = 0;    // its wire type (kWireType)
  uint64_t length = 0;  // the length it declares (kPastEnd)
  size_t remain = 0;    // the bytes left after that length (kPastEnd)
};

// Calls f(const WireField&) for each top-level field of `bytes`, in order, without recursion. False at the first
// field that cannot be read (a tag or varint past the end, a length past the end, field number 0, a group or an
// unknown wire type): the fields before it have been handed to f, and `why` (when given) says where and why.
template <class F>
bool for_each_wire_field(std::string_view bytes, F&& f, WireStop* why = nullptr) {
  size_t pos = 0;
  while (pos < bytes.size()) {
    WireField fd;
    fd.begin = pos;
    uint64_t tag = 0, v = 0;
    auto stop = [&](WireStop::Kind k) {
      if (why) *why = WireStop{k, fd.begin, fd.number, fd.wire, v, bytes.size() - pos};
      return false;
    };
    if (!read_wire_varint(bytes, pos, tag)) return stop(WireStop::kTag);
    if ((tag >> 3) == 0) return stop(WireStop::kFieldZero);
    fd.number = tag >> 3;
    fd.wire = static_cast<unsigned>(tag & 7);
    switch (fd.wire) {
      case 0:
        if (!read_wire_varint(bytes, pos, v)) return stop(WireStop::kInteger);
        break;
      case 1:
      case 5: {
        const size_t n = fd.wire == 1 ? 8 : 4;
        if (bytes.size() - pos < n) return stop(WireStop::kFixed);
        pos += n;
        break;
      }
      case 2:
        if (!read_wire_varint(bytes, pos, v)) return stop(WireStop::kLength);
        if (v > bytes.size() - pos) return stop(WireStop::kPastEnd);
        fd.payload = bytes.substr(pos, v);
        pos += v;
        break;
      default: return stop(WireStop::kWireType);
    }
    fd.end = pos;
    f(static_cast<const WireField&>(fd));
  }
  return true;
}

struct WireScan {
  int64_t offset = -1;  // where the first problem starts; -1 when the top level scans clean
  std::string error;
};
// Scans the top-level fields of a serialized message (tags, varints, lengths) without recursion.
WireScan scan_wire(std::string_view bytes, int max_depth);

}  // namespace condlint

namespace condlint {

// What both of two types admit, by onnx's rule for If outputs (UnionShapeInfo): equal element types kept, a dim
// kept where both give the same value or the same symbol, any other dim unknown, different ranks -> no shape.
// Writes into `out` (cleared first); false when nothing sound can be said (different kinds or element types, an
// unset part, nesting deeper than `depth`): the caller then treats the value as of unknown type.
bool union_onnx_types(const onnx::TypeProto& a, const onnx::TypeProto& b, onnx::TypeProto& out, int depth = 32);
// `inferred` refined by what `declared` adds where the two agree (a dim or element type only one of them states), as
// onnx's mergeShapesAndTypes does. Writes into `out`; false when they contradict (other kind, element type, rank or
// a dim value), and then `out` is left unspecified.
bool refine_onnx_type(const onnx::TypeProto& inferred, const onnx::TypeProto& declared, onnx::TypeProto& out,
                      int depth = 32);

}  // namespace condlint

namespace onnx {
class TensorProto;
}

namespace condlint {

// A tensor's dims, element type and the size of its data, measured without reading the data (OnnxTensorSize; a
// tensor whose data lies in an external file is not measured: ONNX014 / ONNX015 judge it).
OnnxTensorSize measure_tensor(const onnx::TensorProto& t);

}  // namespace condlint
