// Element types, dimensions and partial shapes shared by all formats.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace condlint {

enum class ElemType {
  Unknown,  // not stated by the file
  Dynamic,  // OpenVINO "dynamic" / "undefined": stated as any type
  Boolean,
  F16,
  BF16,
  F32,
  F64,
  F8E4M3,  // ONNX's float8e4m3fn
  F8E5M2,
  F8E4M3FNUZ,  // ONNX only, as are the FNUZ, 2-bit signed and 6-bit float types below
  F8E5M2FNUZ,
  F4E2M1,
  F8E8M0,
  F6E2M3,
  F6E3M2,
  NF4,
  I2,
  I4,
  I8,
  I16,
  I32,
  I64,
  U1,
  U2,
  U3,
  U4,
  U6,
  U8,
  U16,
  U32,
  U64,
  String,
  Complex64,
  Complex128,
};

std::string_view to_string(ElemType t);
// Parses every spelling OpenVINO accepts ("f32", "FP32", "boolean", "BOOL", "u1", "BIN", ...).
std::optional<ElemType> parse_ov_elem_type(std::string_view s);
// Bits per element, 0 when not a fixed-width type (String, Unknown, Dynamic).
unsigned bit_width(ElemType t);
// True when the type is a concrete type (not Unknown/Dynamic).
inline bool is_concrete(ElemType t) { return t != ElemType::Unknown && t != ElemType::Dynamic; }

// A dimension is an interval [lo, hi]; hi < 0 means unbounded. Static when lo == hi.
struct Dim {
  int64_t lo = 0;
  int64_t hi = -1;
  static Dim fixed(int64_t v) { return {v, v}; }
  static Dim dynamic() { return {0, -1}; }
  bool is_static() const { return hi >= 0 && lo == hi; }
  bool is_dynamic() const { return lo == 0 && hi < 0; }
  bool intersects(const Dim& o) const;
  bool operator==(const Dim& o) const { return lo == o.lo && hi == o.hi; }
  std::string str() const;
};

// A partial shape: dynamic rank, or a list of dims.
struct Shape {
  bool rank_known = false;
  std::vector<Dim> dims;
  static Shape unknown() { return {}; }
  static Shape of(std::vector<Dim> d) { return {true, std::move(d)}; }
  static Shape scalar() { return {true, {}}; }
  bool is_static() const;
  // Number of elements when static, nullopt otherwise or on overflow.
  std::optional<uint64_t> element_count() const;
  std::string str() const;
  bool operator==(const Shape& o) const { return rank_known == o.rank_known && dims == o.dims; }
};

// Two shapes are compatible when some concrete shape satisfies both.
bool compatible(const Shape& a, const Shape& b);
// What flows on from an output whose branches give a and b, for ONNX (onnx's inference) and NNAPI: equal dims kept,
// differing dims dynamic, differing ranks a dynamic rank.
Shape merge_branches(const Shape& a, const Shape& b);
// OpenVINO's If-8 rule for the same (If::validate_and_infer_types, resolve_shape): a dynamic rank on either side or
// ranks that differ give a dynamic rank, except a scalar and a 1-D shape, which give one dynamic dim; equal dims are
// kept, a dim not static on either side is dynamic, two static dims that differ give the interval between them.
Shape merge_branches_openvino(const Shape& a, const Shape& b);
// Whether branches of known ranks that give a and b make that If output of dynamic rank by the rule above (ranks
// that differ, other than a scalar and a 1-D shape): what OpenVINO's CPU plugin refuses (IR021).
bool if_output_of_dynamic_rank(const Shape& a, const Shape& b);

// Parses OpenVINO's Parameter/Const `shape` syntax: "1,?,..200,120..", "-1", "a..b", "...", "".
// Returns nullopt with a reason on failure.
std::optional<Shape> parse_ov_shape(std::string_view s, std::string* why = nullptr);
// Parses one dimension ("4", "-1", "?", "1..10", "..10", "2..").
std::optional<Dim> parse_ov_dim(std::string_view s);

// The type of a value: a tensor, or (ONNX) a sequence / optional / map of something.
struct TypeDesc {
  enum class Kind { Unknown, Tensor, SparseTensor, Sequence, Optional, Map };
  Kind kind = Kind::Unknown;
  ElemType elem = ElemType::Unknown;      // tensor element type, or map value's key type
  std::shared_ptr<const TypeDesc> inner;  // element of sequence / optional / map value
  static TypeDesc tensor(ElemType e) {
    TypeDesc t;
    t.kind = Kind::Tensor;
    t.elem = e;
    return t;
  }
  bool known() const;  // fully known, recursively
  std::string str() const;
};
// Equal where both are known; an unknown part is compatible with anything.
bool same_type(const TypeDesc& a, const TypeDesc& b);
// Equal in every part (an unknown part equals only an unknown part).
bool identical(const TypeDesc& a, const TypeDesc& b);

// A value's declared type and shape, immutable once built: the ports of a model share one per distinct pair.
struct ValueType {
  TypeDesc type;
  Shape shape;
  static const ValueType& unknown();  // nothing stated
};
using ValueTypeRef = std::shared_ptr<const ValueType>;

// Interns ValueTypes: a model of a million ports declares a few hundred distinct types, so a loader hands every
// port that states the same type and shape the same copy. Holds what it handed out until it is destroyed.
class ValueTypeTable {
 public:
  ValueTypeRef get(TypeDesc type, Shape shape);

 private:
  std::unordered_map<size_t, std::vector<ValueTypeRef>> by_hash_;
};

bool parse_int64(std::string_view s, int64_t& out);
// "1,2, 3" / "1 2 3" / "": the integers of an IR attribute list; nullopt when one is not an integer.
std::optional<std::vector<int64_t>> parse_int64_list(std::string_view s);

}  // namespace condlint
