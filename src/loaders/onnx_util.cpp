#include "loaders/onnx_util.hpp"

#include <onnx/defs/data_type_utils.h>
#include <onnx/onnx_pb.h>

#include <vector>

namespace condlint {

ElemType onnx_elem_type(int32_t dt) {
  switch (dt) {
    case 1: return ElemType::F32;
    case 2: return ElemType::U8;
    case 3: return ElemType::I8;
    case 4: return ElemType::U16;
    case 5: return ElemType::I16;
    case 6: return ElemType::I32;
    case 7: return ElemType::I64;
    case 8: return ElemType::String;
    case 9: return ElemType::Boolean;
    case 10: return ElemType::F16;
    case 11: return ElemType::F64;
    case 12: return ElemType::U32;
    case 13: return ElemType::U64;
    case 14: return ElemType::Complex64;
    case 15: return ElemType::Complex128;
    case 16: return ElemType::BF16;
    case 17: return ElemType::F8E4M3;  // FLOAT8E4M3FN (onnx 1.14+)
    case 19: return ElemType::F8E5M2;
    case 21: return ElemType::U4;
    case 22: return ElemType::I4;
    case 23: return ElemType::F4E2M1;
    default: return ElemType::Unknown;
  }
}

// The type a sequence, optional or map holds (a map: its value type); null for anything else or when unset.
static const onnx::TypeProto* contained_type(const onnx::TypeProto& t) {
  switch (t.value_case()) {
    case onnx::TypeProto::kSequenceType: return t.sequence_type().has_elem_type() ? &t.sequence_type().elem_type() : nullptr;
    case onnx::TypeProto::kOptionalType: return t.optional_type().has_elem_type() ? &t.optional_type().elem_type() : nullptr;
    case onnx::TypeProto::kMapType: return t.map_type().has_value_type() ? &t.map_type().value_type() : nullptr;
    default: return nullptr;
  }
}

TypeDesc onnx_type_desc(const onnx::TypeProto& top) {
  // The nesting is a chain (each level has at most one inner type): collect it, then build upward.
  std::vector<const onnx::TypeProto*> chain;
  const onnx::TypeProto* t = &top;
  while (t && chain.size() < 64) {
    chain.push_back(t);
    t = contained_type(*t);
  }
  std::shared_ptr<const TypeDesc> inner;
  TypeDesc d;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const onnx::TypeProto& p = **it;
    d = TypeDesc{};
    switch (p.value_case()) {
      case onnx::TypeProto::kTensorType:
        d.kind = TypeDesc::Kind::Tensor;
        d.elem = onnx_elem_type(p.tensor_type().elem_type());
        break;
      case onnx::TypeProto::kSparseTensorType:
        d.kind = TypeDesc::Kind::SparseTensor;
        d.elem = onnx_elem_type(p.sparse_tensor_type().elem_type());
        break;
      case onnx::TypeProto::kSequenceType:
        d.kind = TypeDesc::Kind::Sequence;
        d.inner = inner;
        break;
      case onnx::TypeProto::kOptionalType:
        d.kind = TypeDesc::Kind::Optional;
        d.inner = inner;
        break;
      case onnx::TypeProto::kMapType:
        d.kind = TypeDesc::Kind::Map;
        d.elem = onnx_elem_type(p.map_type().key_type());
        d.inner = inner;
        break;
      default: break;  // unset or a kind this build does not know (opaque): unknown
    }
    if (it == chain.rbegin() && chain.size() == 64 && (d.kind == TypeDesc::Kind::Sequence ||
                                                     d.kind == TypeDesc::Kind::Optional || d.kind == TypeDesc::Kind::Map))
      d.inner = std::make_shared<TypeDesc>();  // cut: the rest is unknown
    inner = std::make_shared<const TypeDesc>(d);
  }
  return d;
}

int onnx_type_depth(const onnx::TypeProto& top) {
  int depth = 0;
  for (const onnx::TypeProto* t = &top; t;) {
    ++depth;
    t = contained_type(*t);
  }
  return depth;
}

std::string onnx_type_string(const onnx::TypeProto& top) {
  std::string left, right;
  for (const onnx::TypeProto* t = &top;;) {
    switch (t->value_case()) {
      case onnx::TypeProto::kSequenceType:
        if (!t->sequence_type().has_elem_type()) return {};
        left += "seq(";
        right += ')';
        t = &t->sequence_type().elem_type();
        break;
      case onnx::TypeProto::kOptionalType:
        if (!t->optional_type().has_elem_type()) return {};
        left += "optional(";
        right += ')';
        t = &t->optional_type().elem_type();
        break;
      case onnx::TypeProto::kTensorType: {
        std::string elem;
        try {
          elem = onnx::Utils::DataTypeUtils::ToDataTypeString(t->tensor_type().elem_type());
        } catch (const std::exception&) {
          return {};
        }
        return left + "tensor(" + elem + ")" + right;
      }
      default:
        return {};
    }
  }
}

Shape onnx_shape(const onnx::TypeProto& t) {
  const onnx::TensorShapeProto* sp = nullptr;
  if (t.value_case() == onnx::TypeProto::kTensorType && t.tensor_type().has_shape()) sp = &t.tensor_type().shape();
  else if (t.value_case() == onnx::TypeProto::kSparseTensorType && t.sparse_tensor_type().has_shape())
    sp = &t.sparse_tensor_type().shape();
  if (!sp) return Shape::unknown();
  Shape s = Shape::of({});
  s.dims.reserve(sp->dim_size());
  for (const auto& d : sp->dim())
    s.dims.push_back(d.has_dim_value() && d.dim_value() >= 0 ? Dim::fixed(d.dim_value()) : Dim::dynamic());
  return s;
}

namespace {
bool read_varint(std::string_view b, size_t& pos, uint64_t& out) {
  out = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= b.size()) return false;
    const auto byte = static_cast<uint8_t>(b[pos++]);
    out |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return true;
  }
  return false;
}
}  // namespace

WireScan scan_wire(std::string_view b, int) {
  WireScan r;
  size_t pos = 0;
  while (pos < b.size()) {
    const size_t start = pos;
    uint64_t tag = 0;
    if (!read_varint(b, pos, tag)) {
      r.offset = static_cast<int64_t>(start);
      r.error = "a field tag runs past the end of the file (truncated?)";
      return r;
    }
    const uint64_t field = tag >> 3;
    const unsigned wire = tag & 7;
    if (field == 0) {
      r.offset = static_cast<int64_t>(start);
      r.error = "field number 0 is not a valid protobuf tag (wrong bytes?)";
      return r;
    }
    const std::string fdesc = "field " + std::to_string(field);
    switch (wire) {
      case 0: {
        uint64_t v;
        if (!read_varint(b, pos, v)) {
          r.offset = static_cast<int64_t>(start);
          r.error = fdesc + "'s integer runs past the end of the file (truncated?)";
          return r;
        }
        break;
      }
      case 1:
      case 5: {
        const size_t n = wire == 1 ? 8 : 4;
        if (b.size() - pos < n) {
          r.offset = static_cast<int64_t>(start);
          r.error = fdesc + "'s fixed-size value runs past the end of the file (truncated?)";
          return r;
        }
        pos += n;
        break;
      }
      case 2: {
        uint64_t len;
        if (!read_varint(b, pos, len)) {
          r.offset = static_cast<int64_t>(start);
          r.error = fdesc + "'s length runs past the end of the file (truncated?)";
          return r;
        }
        if (len > b.size() - pos) {
          r.offset = static_cast<int64_t>(start);
          r.error = fdesc + " declares " + std::to_string(len) + " bytes but only " + std::to_string(b.size() - pos) +
                    " remain (truncated?)";
          return r;
        }
        pos += len;
        break;
      }
      default:
        r.offset = static_cast<int64_t>(start);
        r.error = fdesc + " has wire type " + std::to_string(wire) + ", which ModelProto never uses (wrong bytes?)";
        return r;
    }
  }
  return r;
}

}  // namespace condlint
