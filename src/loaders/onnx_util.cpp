#include "loaders/onnx_util.hpp"

#include "model/model.hpp"

#include <onnx/defs/data_type_utils.h>
#include <onnx/onnx_pb.h>

#include <vector>

namespace condlint {

namespace {
// The element types onnx added after 1.12 (onnx.proto's TensorProto.DataType), which the linked onnx cannot name:
// their numbers, their names as onnx's type strings spell them ("tensor(float8e4m3fn)") and condlint's types.
struct NewerType {
  int32_t number;
  std::string_view name;
  ElemType elem;
};
constexpr NewerType kNewerTypes[] = {
    {17, "float8e4m3fn", ElemType::F8E4M3},
    {18, "float8e4m3fnuz", ElemType::F8E4M3FNUZ},
    {19, "float8e5m2", ElemType::F8E5M2},
    {20, "float8e5m2fnuz", ElemType::F8E5M2FNUZ},
    {21, "uint4", ElemType::U4},
    {22, "int4", ElemType::I4},
    {23, "float4e2m1", ElemType::F4E2M1},
    {24, "float8e8m0", ElemType::F8E8M0},
    {25, "uint2", ElemType::U2},
    {26, "int2", ElemType::I2},
    {27, "float6e2m3", ElemType::F6E2M3},
    {28, "float6e3m2", ElemType::F6E3M2},
};
}  // namespace

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
    default: break;
  }
  for (const auto& n : kNewerTypes)
    if (n.number == dt) return n.elem;
  return ElemType::Unknown;
}

std::string_view onnx_elem_name(int32_t dt) {
  for (const auto& n : kNewerTypes)
    if (n.number == dt) return n.name;
  return {};
}

int32_t onnx_elem_number(std::string_view name) {
  for (const auto& n : kNewerTypes)
    if (n.name == name) return n.number;
  return 0;
}

// The type a sequence, optional or map holds (a map: its value type); null for anything else or when unset.
static const onnx::TypeProto* contained_type(const onnx::TypeProto& t) {
  switch (t.value_case()) {
    case onnx::TypeProto::kSequenceType:
      return t.sequence_type().has_elem_type() ? &t.sequence_type().elem_type() : nullptr;
    case onnx::TypeProto::kOptionalType:
      return t.optional_type().has_elem_type() ? &t.optional_type().elem_type() : nullptr;
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
    if (it == chain.rbegin() && chain.size() == 64 &&
        (d.kind == TypeDesc::Kind::Sequence || d.kind == TypeDesc::Kind::Optional || d.kind == TypeDesc::Kind::Map))
      d.inner = std::make_shared<TypeDesc>();  // cut: the rest is unknown
    inner = std::make_shared<const TypeDesc>(d);
  }
  return d;
}

int64_t onnx_max_rank(const onnx::TypeProto& top) {
  int64_t rank = 0;
  int depth = 0;
  for (const onnx::TypeProto* t = &top; t && depth < 1000; t = contained_type(*t), ++depth) {
    if (t->value_case() == onnx::TypeProto::kTensorType && t->tensor_type().has_shape())
      rank = std::max<int64_t>(rank, t->tensor_type().shape().dim_size());
    else if (t->value_case() == onnx::TypeProto::kSparseTensorType && t->sparse_tensor_type().has_shape())
      rank = std::max<int64_t>(rank, t->sparse_tensor_type().shape().dim_size());
  }
  return rank;
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
        std::string elem(onnx_elem_name(t->tensor_type().elem_type()));
        if (elem.empty()) try {
            elem = onnx::Utils::DataTypeUtils::ToDataTypeString(t->tensor_type().elem_type());
          } catch (const std::exception&) {
            return {};
          }
        return left + "tensor(" + elem + ")" + right;
      }
      default: return {};
    }
  }
}

Shape onnx_shape(const onnx::TypeProto& t) {
  const onnx::TensorShapeProto* sp = nullptr;
  if (t.value_case() == onnx::TypeProto::kTensorType && t.tensor_type().has_shape()) sp = &t.tensor_type().shape();
  else if (t.value_case() == onnx::TypeProto::kSparseTensorType && t.sparse_tensor_type().has_shape())
    sp = &t.sparse_tensor_type().shape();
  if (!sp || sp->dim_size() > kMaxRank) return Shape::unknown();  // past the limit: not built (rule C013)
  Shape s = Shape::of({});
  s.dims.reserve(sp->dim_size());
  for (const auto& d : sp->dim())
    s.dims.push_back(d.has_dim_value() && d.dim_value() >= 0 ? Dim::fixed(d.dim_value()) : Dim::dynamic());
  return s;
}

WireScan scan_wire(std::string_view b, int) {
  WireStop why;
  WireScan r;
  const auto skip = [](const WireField&) {};
  if (for_each_wire_field(b, skip, &why)) return r;
  r.offset = static_cast<int64_t>(why.begin);
  const std::string fdesc = "field " + std::to_string(why.field);
  switch (why.kind) {
    case WireStop::kTag: r.error = "a field tag runs past the end of the file (truncated?)"; break;
    case WireStop::kFieldZero: r.error = "field number 0 is not a valid protobuf tag (wrong bytes?)"; break;
    case WireStop::kInteger: r.error = fdesc + "'s integer runs past the end of the file (truncated?)"; break;
    case WireStop::kFixed: r.error = fdesc + "'s fixed-size value runs past the end of the file (truncated?)"; break;
    case WireStop::kLength: r.error = fdesc + "'s length runs past the end of the file (truncated?)"; break;
    case WireStop::kPastEnd:
      r.error = fdesc + " declares " + std::to_string(why.length) + " bytes but only " + std::to_string(why.remain) +
                " remain (truncated?)";
      break;
    case WireStop::kWireType:
      r.error = fdesc + " has wire type " + std::to_string(why.wire) + ", which ModelProto never uses (wrong bytes?)";
      break;
    case WireStop::kNone: break;
  }
  return r;
}

}  // namespace condlint

namespace condlint {

namespace {

using onnx::TensorShapeProto;
using onnx::TypeProto;

// The shape both admit (see union_onnx_types) into `out`; false when there is none (a side without a shape, or
// different ranks).
bool union_shapes(const TensorShapeProto* a, const TensorShapeProto* b, TensorShapeProto& out) {
  if (!a || !b || a->dim_size() != b->dim_size()) return false;
  for (int i = 0; i < a->dim_size(); ++i) {
    const auto& x = a->dim(i);
    const auto& y = b->dim(i);
    auto* d = out.add_dim();
    if (x.has_dim_value() && y.has_dim_value() && x.dim_value() == y.dim_value()) d->set_dim_value(x.dim_value());
    else if (x.has_dim_param() && y.has_dim_param() && !x.dim_param().empty() && x.dim_param() == y.dim_param())
      d->set_dim_param(x.dim_param());
  }
  return true;
}

// One dim of `inferred` refined by `declared`; false on two different values.
bool refine_dim(const TensorShapeProto::Dimension& inf, const TensorShapeProto::Dimension& dec,
                TensorShapeProto::Dimension& out) {
  if (inf.has_dim_value()) {
    if (dec.has_dim_value() && dec.dim_value() != inf.dim_value() && inf.dim_value() >= 0 && dec.dim_value() >= 0)
      return false;
    out.set_dim_value(inf.dim_value());
  } else if (dec.has_dim_value()) {
    out.set_dim_value(dec.dim_value());
  } else if (inf.has_dim_param() && !inf.dim_param().empty()) {
    out.set_dim_param(inf.dim_param());
  } else if (dec.has_dim_param()) {
    out.set_dim_param(dec.dim_param());
  }
  return true;
}

bool refine_shapes(const TensorShapeProto* inf, const TensorShapeProto* dec, TensorShapeProto* out) {
  if (!inf && !dec) return true;
  if (!inf || !dec) {
    out->CopyFrom(inf ? *inf : *dec);
    return true;
  }
  if (inf->dim_size() != dec->dim_size()) return false;
  for (int i = 0; i < inf->dim_size(); ++i)
    if (!refine_dim(inf->dim(i), dec->dim(i), *out->add_dim())) return false;
  return true;
}

}  // namespace

bool union_onnx_types(const TypeProto& a, const TypeProto& b, TypeProto& out, int depth) {
  out.Clear();
  if (depth <= 0 || a.value_case() != b.value_case()) return false;
  switch (a.value_case()) {
    case TypeProto::kTensorType: {
      const auto& x = a.tensor_type();
      const auto& y = b.tensor_type();
      if (x.elem_type() == 0 || x.elem_type() != y.elem_type()) return false;
      auto* t = out.mutable_tensor_type();
      t->set_elem_type(x.elem_type());
      TensorShapeProto shape;
      if (union_shapes(x.has_shape() ? &x.shape() : nullptr, y.has_shape() ? &y.shape() : nullptr, shape))
        *t->mutable_shape() = std::move(shape);
      return true;
    }
    case TypeProto::kSparseTensorType: {
      const auto& x = a.sparse_tensor_type();
      const auto& y = b.sparse_tensor_type();
      if (x.elem_type() == 0 || x.elem_type() != y.elem_type()) return false;
      auto* t = out.mutable_sparse_tensor_type();
      t->set_elem_type(x.elem_type());
      TensorShapeProto shape;
      if (union_shapes(x.has_shape() ? &x.shape() : nullptr, y.has_shape() ? &y.shape() : nullptr, shape))
        *t->mutable_shape() = std::move(shape);
      return true;
    }
    case TypeProto::kSequenceType: {
      if (!a.sequence_type().has_elem_type() || !b.sequence_type().has_elem_type()) return false;
      TypeProto inner;
      if (!union_onnx_types(a.sequence_type().elem_type(), b.sequence_type().elem_type(), inner, depth - 1))
        return false;
      *out.mutable_sequence_type()->mutable_elem_type() = std::move(inner);
      return true;
    }
    case TypeProto::kOptionalType: {
      if (!a.optional_type().has_elem_type() || !b.optional_type().has_elem_type()) return false;
      TypeProto inner;
      if (!union_onnx_types(a.optional_type().elem_type(), b.optional_type().elem_type(), inner, depth - 1))
        return false;
      *out.mutable_optional_type()->mutable_elem_type() = std::move(inner);
      return true;
    }
    case TypeProto::kMapType: {
      const auto& x = a.map_type();
      const auto& y = b.map_type();
      if (x.key_type() == 0 || x.key_type() != y.key_type() || !x.has_value_type() || !y.has_value_type()) return false;
      TypeProto inner;
      if (!union_onnx_types(x.value_type(), y.value_type(), inner, depth - 1)) return false;
      out.mutable_map_type()->set_key_type(x.key_type());
      *out.mutable_map_type()->mutable_value_type() = std::move(inner);
      return true;
    }
    default: return false;
  }
}

bool refine_onnx_type(const TypeProto& inf, const TypeProto& dec, TypeProto& out, int depth) {
  out.Clear();
  if (depth <= 0) return false;
  if (dec.value_case() == TypeProto::VALUE_NOT_SET) {
    out.CopyFrom(inf);
    return true;
  }
  if (inf.value_case() == TypeProto::VALUE_NOT_SET) {
    out.CopyFrom(dec);
    return true;
  }
  if (inf.value_case() != dec.value_case()) return false;
  auto elem = [](int32_t i, int32_t d, int32_t& o) {
    if (i != 0 && d != 0 && i != d) return false;
    o = i != 0 ? i : d;
    return true;
  };
  int32_t e = 0;
  switch (inf.value_case()) {
    case TypeProto::kTensorType: {
      const auto& x = inf.tensor_type();
      const auto& y = dec.tensor_type();
      if (!elem(x.elem_type(), y.elem_type(), e)) return false;
      auto* t = out.mutable_tensor_type();
      t->set_elem_type(e);
      if (!x.has_shape() && !y.has_shape()) return true;
      return refine_shapes(x.has_shape() ? &x.shape() : nullptr, y.has_shape() ? &y.shape() : nullptr,
                           t->mutable_shape());
    }
    case TypeProto::kSparseTensorType: {
      const auto& x = inf.sparse_tensor_type();
      const auto& y = dec.sparse_tensor_type();
      if (!elem(x.elem_type(), y.elem_type(), e)) return false;
      auto* t = out.mutable_sparse_tensor_type();
      t->set_elem_type(e);
      if (!x.has_shape() && !y.has_shape()) return true;
      return refine_shapes(x.has_shape() ? &x.shape() : nullptr, y.has_shape() ? &y.shape() : nullptr,
                           t->mutable_shape());
    }
    case TypeProto::kSequenceType:
    case TypeProto::kOptionalType: {
      const bool seq = inf.value_case() == TypeProto::kSequenceType;
      const TypeProto* xi = seq ? (inf.sequence_type().has_elem_type() ? &inf.sequence_type().elem_type() : nullptr)
                                : (inf.optional_type().has_elem_type() ? &inf.optional_type().elem_type() : nullptr);
      const TypeProto* yi = seq ? (dec.sequence_type().has_elem_type() ? &dec.sequence_type().elem_type() : nullptr)
                                : (dec.optional_type().has_elem_type() ? &dec.optional_type().elem_type() : nullptr);
      TypeProto* oi =
          seq ? out.mutable_sequence_type()->mutable_elem_type() : out.mutable_optional_type()->mutable_elem_type();
      if (!xi || !yi) {
        if (xi || yi) oi->CopyFrom(xi ? *xi : *yi);
        return true;
      }
      TypeProto inner;
      if (!refine_onnx_type(*xi, *yi, inner, depth - 1)) return false;
      *oi = std::move(inner);
      return true;
    }
    case TypeProto::kMapType: {
      const auto& x = inf.map_type();
      const auto& y = dec.map_type();
      if (!elem(x.key_type(), y.key_type(), e)) return false;
      out.mutable_map_type()->set_key_type(e);
      if (!x.has_value_type() || !y.has_value_type()) {
        if (x.has_value_type() || y.has_value_type())
          out.mutable_map_type()->mutable_value_type()->CopyFrom(x.has_value_type() ? x.value_type() : y.value_type());
        return true;
      }
      TypeProto inner;
      if (!refine_onnx_type(x.value_type(), y.value_type(), inner, depth - 1)) return false;
      *out.mutable_map_type()->mutable_value_type() = std::move(inner);
      return true;
    }
    default: return false;
  }
}

}  // namespace condlint

namespace condlint {

namespace {

// How each element type is stored: bits per element, the typed field that holds its values when there is no raw_data,
// the entries each element takes there, and the elements one entry holds (onnx.proto: 4-bit types two to an int32_data
// entry, 2-bit types four; raw_data packs every sub-byte type, the last byte padded). Numbers past 1.12's enum: the
// types onnx 1.14 and later added.
struct StoredAs {
  int32_t type;
  unsigned bits;  // 0: strings (sized by count)
  std::string_view field;
  int per_element;
  int per_value = 1;
};
constexpr StoredAs kStoredAs[] = {
    {onnx::TensorProto::FLOAT, 32, "float_data", 1},
    {onnx::TensorProto::COMPLEX64, 64, "float_data", 2},
    {onnx::TensorProto::DOUBLE, 64, "double_data", 1},
    {onnx::TensorProto::COMPLEX128, 128, "double_data", 2},
    {onnx::TensorProto::INT64, 64, "int64_data", 1},
    {onnx::TensorProto::UINT32, 32, "uint64_data", 1},
    {onnx::TensorProto::UINT64, 64, "uint64_data", 1},
    {onnx::TensorProto::INT32, 32, "int32_data", 1},
    {onnx::TensorProto::INT16, 16, "int32_data", 1},
    {onnx::TensorProto::UINT16, 16, "int32_data", 1},
    {onnx::TensorProto::FLOAT16, 16, "int32_data", 1},
    {onnx::TensorProto::BFLOAT16, 16, "int32_data", 1},
    {onnx::TensorProto::INT8, 8, "int32_data", 1},
    {onnx::TensorProto::UINT8, 8, "int32_data", 1},
    {onnx::TensorProto::BOOL, 8, "int32_data", 1},
    {onnx::TensorProto::STRING, 0, "string_data", 1},
    {17, 8, "int32_data", 1},     // FLOAT8E4M3FN
    {18, 8, "int32_data", 1},     // FLOAT8E4M3FNUZ
    {19, 8, "int32_data", 1},     // FLOAT8E5M2
    {20, 8, "int32_data", 1},     // FLOAT8E5M2FNUZ
    {21, 4, "int32_data", 1, 2},  // UINT4
    {22, 4, "int32_data", 1, 2},  // INT4
    {23, 4, "int32_data", 1, 2},  // FLOAT4E2M1
    {24, 8, "int32_data", 1},     // FLOAT8E8M0
    {25, 2, "int32_data", 1, 4},  // UINT2
    {26, 2, "int32_data", 1, 4},  // INT2
    {27, 6, "int32_data", 1},     // FLOAT6E2M3
    {28, 6, "int32_data", 1},     // FLOAT6E3M2
};

int64_t typed_values(const onnx::TensorProto& t, std::string_view field) {
  if (field == "float_data") return t.float_data_size();
  if (field == "double_data") return t.double_data_size();
  if (field == "int64_data") return t.int64_data_size();
  if (field == "uint64_data") return t.uint64_data_size();
  if (field == "int32_data") return t.int32_data_size();
  return t.string_data_size();
}

}  // namespace

OnnxTensorSize measure_tensor(const onnx::TensorProto& t) {
  using TP = onnx::TensorProto;
  OnnxTensorSize m;
  if (t.data_location() == TP::EXTERNAL) return m;  // ONNX014 / ONNX015 judge where its data lies
  m.rank = t.dims_size();
  for (int i = 0; i < t.dims_size(); ++i) {
    const int64_t d = t.dims(i);
    if (i < 8) m.dims.push_back(d);
    if (d < 0) {
      if (m.negative_dim < 0) m.negative_dim = i, m.negative_value = d;
      continue;
    }
    if (d != 0 && m.count > UINT64_MAX / static_cast<uint64_t>(d)) m.count_overflows = true;
    else m.count *= static_cast<uint64_t>(d);
  }
  for (const StoredAs& k : kStoredAs)
    if (k.type == t.data_type()) {
      m.bits = k.bits;
      m.strings = k.type == TP::STRING;
      m.field = k.field;
      m.field_values = typed_values(t, k.field);
      m.per_element = k.per_element;
      m.per_value = k.per_value;
    }
  m.raw = !t.raw_data().empty();
  m.raw_bytes = t.raw_data().size();
  m.values_elsewhere = t.float_data_size() || t.int32_data_size() || t.string_data_size() || t.int64_data_size() ||
                       t.double_data_size() || t.uint64_data_size();
  return m;
}

}  // namespace condlint
