#include "model/types.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <utility>

namespace condlint {

namespace {
struct TypeName {
  ElemType type;
  std::string_view canonical;
};
constexpr TypeName kNames[] = {
    {ElemType::Unknown, "unknown"},
    {ElemType::Dynamic, "dynamic"},
    {ElemType::Boolean, "boolean"},
    {ElemType::F16, "f16"},
    {ElemType::BF16, "bf16"},
    {ElemType::F32, "f32"},
    {ElemType::F64, "f64"},
    {ElemType::F8E4M3, "f8e4m3"},
    {ElemType::F8E5M2, "f8e5m2"},
    {ElemType::F8E4M3FNUZ, "f8e4m3fnuz"},
    {ElemType::F8E5M2FNUZ, "f8e5m2fnuz"},
    {ElemType::F6E2M3, "f6e2m3"},
    {ElemType::F6E3M2, "f6e3m2"},
    {ElemType::I2, "i2"},
    {ElemType::F4E2M1, "f4e2m1"},
    {ElemType::F8E8M0, "f8e8m0"},
    {ElemType::NF4, "nf4"},
    {ElemType::I4, "i4"},
    {ElemType::I8, "i8"},
    {ElemType::I16, "i16"},
    {ElemType::I32, "i32"},
    {ElemType::I64, "i64"},
    {ElemType::U1, "u1"},
    {ElemType::U2, "u2"},
    {ElemType::U3, "u3"},
    {ElemType::U4, "u4"},
    {ElemType::U6, "u6"},
    {ElemType::U8, "u8"},
    {ElemType::U16, "u16"},
    {ElemType::U32, "u32"},
    {ElemType::U64, "u64"},
    {ElemType::String, "string"},
    {ElemType::Complex64, "complex64"},
    {ElemType::Complex128, "complex128"},
};

// Spellings OpenVINO's element::Type(string) accepts besides the canonical lower-case names.
constexpr std::pair<std::string_view, ElemType> kOvAliases[] = {
    {"BOOL", ElemType::Boolean},
    {"FP16", ElemType::F16},
    {"BF16", ElemType::BF16},
    {"FP32", ElemType::F32},
    {"FP64", ElemType::F64},
    {"F8E4M3", ElemType::F8E4M3},
    {"F8E5M2", ElemType::F8E5M2},
    {"F4E2M1", ElemType::F4E2M1},
    {"F8E8M0", ElemType::F8E8M0},
    {"NF4", ElemType::NF4},
    {"I4", ElemType::I4},
    {"I8", ElemType::I8},
    {"I16", ElemType::I16},
    {"I32", ElemType::I32},
    {"I64", ElemType::I64},
    {"BIN", ElemType::U1},
    {"U1", ElemType::U1},
    {"U2", ElemType::U2},
    {"U3", ElemType::U3},
    {"U4", ElemType::U4},
    {"U6", ElemType::U6},
    {"U8", ElemType::U8},
    {"U16", ElemType::U16},
    {"U32", ElemType::U32},
    {"U64", ElemType::U64},
    {"STRING", ElemType::String},
    {"undefined", ElemType::Dynamic},
    {"UNSPECIFIED", ElemType::Dynamic},
    {"DYNAMIC", ElemType::Dynamic},
};
}  // namespace

std::string_view to_string(ElemType t) {
  for (const auto& n : kNames)
    if (n.type == t) return n.canonical;
  return "unknown";
}

// Element types only ONNX has: OpenVINO spells none of them.
static bool onnx_only(ElemType t) {
  return t == ElemType::F8E4M3FNUZ || t == ElemType::F8E5M2FNUZ || t == ElemType::F6E2M3 || t == ElemType::F6E3M2 ||
         t == ElemType::I2;
}

std::optional<ElemType> parse_ov_elem_type(std::string_view s) {
  for (const auto& n : kNames)
    if (n.type != ElemType::Unknown && n.type != ElemType::Complex64 && n.type != ElemType::Complex128 &&
        !onnx_only(n.type) && n.canonical == s)
      return n.type;
  for (const auto& [name, t] : kOvAliases)
    if (name == s) return t;
  return std::nullopt;
}

unsigned bit_width(ElemType t) {
  switch (t) {
    case ElemType::Boolean:
    case ElemType::I8:
    case ElemType::U8:
    case ElemType::F8E4M3:
    case ElemType::F8E5M2:
    case ElemType::F8E4M3FNUZ:
    case ElemType::F8E5M2FNUZ:
    case ElemType::F8E8M0: return 8;
    case ElemType::F16:
    case ElemType::BF16:
    case ElemType::I16:
    case ElemType::U16: return 16;
    case ElemType::F32:
    case ElemType::I32:
    case ElemType::U32: return 32;
    case ElemType::F64:
    case ElemType::I64:
    case ElemType::U64:
    case ElemType::Complex64: return 64;
    case ElemType::Complex128: return 128;
    case ElemType::I4:
    case ElemType::U4:
    case ElemType::NF4:
    case ElemType::F4E2M1: return 4;
    case ElemType::U1: return 1;
    case ElemType::U2:
    case ElemType::I2: return 2;
    case ElemType::U3: return 3;
    case ElemType::U6:
    case ElemType::F6E2M3:
    case ElemType::F6E3M2: return 6;
    default: return 0;
  }
}

bool parse_int64(std::string_view s, int64_t& out) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  if (s.empty()) return false;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (*b == '+') ++b;
  auto [p, ec] = std::from_chars(b, e, out);
  return ec == std::errc() && p == e;
}

bool Dim::intersects(const Dim& o) const {
  const int64_t lo_max = std::max(lo, o.lo);
  if (hi >= 0 && lo_max > hi) return false;
  if (o.hi >= 0 && lo_max > o.hi) return false;
  return true;
}

std::string Dim::str() const {
  if (is_static()) return std::to_string(lo);
  if (is_dynamic()) return "?";
  std::string s = lo > 0 ? std::to_string(lo) : "";
  s += "..";
  if (hi >= 0) s += std::to_string(hi);
  return s;
}

bool Shape::is_static() const {
  if (!rank_known) return false;
  return std::all_of(dims.begin(), dims.end(), [](const Dim& d) { return d.is_static(); });
}

std::optional<uint64_t> Shape::element_count() const {
  if (!is_static()) return std::nullopt;
  uint64_t n = 1;
  for (const auto& d : dims) {
    const auto v = static_cast<uint64_t>(d.lo);
    if (v != 0 && n > std::numeric_limits<uint64_t>::max() / v) return std::nullopt;
    n *= v;
  }
  return n;
}

std::string Shape::str() const {
  if (!rank_known) return "[...]";
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    s += dims[i].str();
  }
  return s + "]";
}

bool compatible(const Shape& a, const Shape& b) {
  if (!a.rank_known || !b.rank_known) return true;
  if (a.dims.size() != b.dims.size()) return false;
  for (size_t i = 0; i < a.dims.size(); ++i)
    if (!a.dims[i].intersects(b.dims[i])) return false;
  return true;
}

Shape merge_branches(const Shape& a, const Shape& b) {
  if (!a.rank_known || !b.rank_known || a.dims.size() != b.dims.size()) return Shape::unknown();
  Shape r = Shape::of({});
  for (size_t i = 0; i < a.dims.size(); ++i) r.dims.push_back(a.dims[i] == b.dims[i] ? a.dims[i] : Dim::dynamic());
  return r;
}

Shape merge_branches_openvino(const Shape& a, const Shape& b) {
  if (!a.rank_known || !b.rank_known) return Shape::unknown();
  if (a.dims.size() != b.dims.size())
    return a.dims.size() <= 1 && b.dims.size() <= 1 ? Shape::of({Dim::dynamic()}) : Shape::unknown();
  Shape r = Shape::of({});
  for (size_t i = 0; i < a.dims.size(); ++i) {
    const Dim &x = a.dims[i], &y = b.dims[i];
    if (!x.is_static() || !y.is_static()) r.dims.push_back(Dim::dynamic());
    else r.dims.push_back(Dim{std::min(x.lo, y.lo), std::max(x.lo, y.lo)});
  }
  return r;
}

bool if_output_of_dynamic_rank(const Shape& a, const Shape& b) {
  return a.rank_known && b.rank_known && !merge_branches_openvino(a, b).rank_known;
}

std::optional<Dim> parse_ov_dim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  if (s == "?" || s == "-1") return Dim::dynamic();
  const auto dots = s.find("..");
  if (dots == std::string_view::npos) {
    int64_t v = 0;
    if (!parse_int64(s, v) || v < 0) return std::nullopt;
    return Dim::fixed(v);
  }
  const auto lo_s = s.substr(0, dots);
  const auto hi_s = s.substr(dots + 2);
  Dim d = Dim::dynamic();
  if (!lo_s.empty() && (!parse_int64(lo_s, d.lo) || d.lo < 0)) return std::nullopt;
  if (!hi_s.empty() && (!parse_int64(hi_s, d.hi) || d.hi < 0)) return std::nullopt;
  if (d.hi >= 0 && d.hi < d.lo) return std::nullopt;
  return d;
}

std::optional<Shape> parse_ov_shape(std::string_view s, std::string* why) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  if (s.empty()) return Shape::scalar();
  if (s == "...") return Shape::unknown();
  Shape r = Shape::of({});
  size_t start = 0;
  while (true) {
    const size_t comma = s.find(',', start);
    const auto part = s.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    std::string_view trimmed = part;
    while (!trimmed.empty() && trimmed.front() == ' ') trimmed.remove_prefix(1);
    while (!trimmed.empty() && trimmed.back() == ' ') trimmed.remove_suffix(1);
    if (trimmed == "...") {
      if (why) *why = "'...' (dynamic rank) must be the whole shape, not one dimension";
      return std::nullopt;
    }
    auto d = parse_ov_dim(part);
    if (!d) {
      if (why) *why = "cannot parse dimension '" + std::string(part) + "'";
      return std::nullopt;
    }
    r.dims.push_back(*d);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return r;
}

bool TypeDesc::known() const {
  switch (kind) {
    case Kind::Unknown: return false;
    case Kind::Tensor:
    case Kind::SparseTensor: return is_concrete(elem);
    default: return inner && inner->known();
  }
}

std::string TypeDesc::str() const {
  switch (kind) {
    case Kind::Unknown: return "unknown";
    case Kind::Tensor: return std::string(to_string(elem));
    case Kind::SparseTensor: return "sparse_tensor(" + std::string(to_string(elem)) + ")";
    case Kind::Sequence: return "sequence(" + (inner ? inner->str() : std::string("?")) + ")";
    case Kind::Optional: return "optional(" + (inner ? inner->str() : std::string("?")) + ")";
    case Kind::Map:
      return "map(" + std::string(to_string(elem)) + "," + (inner ? inner->str() : std::string("?")) + ")";
  }
  return "unknown";
}

bool same_type(const TypeDesc& a, const TypeDesc& b) {
  if (a.kind == TypeDesc::Kind::Unknown || b.kind == TypeDesc::Kind::Unknown) return true;
  if (a.kind != b.kind) return false;
  const bool ea = is_concrete(a.elem), eb = is_concrete(b.elem);
  switch (a.kind) {
    case TypeDesc::Kind::Tensor:
    case TypeDesc::Kind::SparseTensor: return !ea || !eb || a.elem == b.elem;
    case TypeDesc::Kind::Map:
      if (ea && eb && a.elem != b.elem) return false;
      [[fallthrough]];
    default:
      if (!a.inner || !b.inner) return true;
      return same_type(*a.inner, *b.inner);
  }
}

bool identical(const TypeDesc& a, const TypeDesc& b) {
  // Along the chain of inner types (a sequence of optionals of ...) in a loop: a file decides how deep it goes.
  const TypeDesc* x = &a;
  const TypeDesc* y = &b;
  while (x != y) {
    if (x->kind != y->kind || x->elem != y->elem || !x->inner != !y->inner) return false;
    if (!x->inner) return true;
    x = x->inner.get();
    y = y->inner.get();
  }
  return true;
}

const ValueType& ValueType::unknown() {
  static const ValueType u;
  return u;
}

ValueTypeRef ValueTypeTable::get(TypeDesc type, Shape shape) {
  size_t h = std::hash<int>()(static_cast<int>(type.kind)) * 31 + static_cast<size_t>(type.elem);
  for (const TypeDesc* t = type.inner.get(); t; t = t->inner.get())
    h = h * 131 + static_cast<size_t>(t->kind) * 37 + static_cast<size_t>(t->elem);
  h = h * 2 + (shape.rank_known ? 1 : 0);
  for (const Dim& d : shape.dims) h = (h * 1000003) ^ (std::hash<int64_t>()(d.lo) * 7 + std::hash<int64_t>()(d.hi));
  auto& bucket = by_hash_[h];
  for (const ValueTypeRef& v : bucket)
    if (v->shape == shape && identical(v->type, type)) return v;
  // A bucket this full means colliding keys (a file can be made to collide): the pair is not shared, so the work
  // per port stays bounded.
  constexpr size_t kMaxBucket = 8;
  if (bucket.size() >= kMaxBucket)
    return std::make_shared<const ValueType>(ValueType{std::move(type), std::move(shape)});
  bucket.push_back(std::make_shared<const ValueType>(ValueType{std::move(type), std::move(shape)}));
  return bucket.back();
}

std::optional<std::vector<int64_t>> parse_int64_list(std::string_view s) {
  std::vector<int64_t> out;
  size_t k = 0;
  while (k < s.size()) {
    while (k < s.size() && (s[k] == ',' || s[k] == ' ')) ++k;
    size_t e = k;
    while (e < s.size() && s[e] != ',' && s[e] != ' ') ++e;
    if (e == k) break;
    int64_t v = 0;
    if (!parse_int64(s.substr(k, e - k), v)) return std::nullopt;
    out.push_back(v);
    k = e;
  }
  return out;
}

}  // namespace condlint
