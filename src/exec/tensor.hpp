// Tensors and values of the reference executor.
//
// Storage is deliberately uniform so that kernels stay small: every floating type (f64, f32, f16, bf16)
// is held as double and rounded to its own precision after each operation; every integer type and bool
// as int64_t (wrapped to its own width after each operation; u64 keeps its bit pattern); strings as
// std::string. Every allocation goes through the resource guard (elements per tensor, live bytes).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace condlint::exec {

// Element types, numbered as onnx.TensorProto.DataType.
enum class DT : int {
  Undefined = 0,
  F32 = 1,
  U8 = 2,
  I8 = 3,
  U16 = 4,
  I16 = 5,
  I32 = 6,
  I64 = 7,
  Str = 8,
  Bool = 9,
  F16 = 10,
  F64 = 11,
  U32 = 12,
  U64 = 13,
  BF16 = 16,
};

bool dt_known(int onnx_type);
const char* dt_name(DT t);
// Inline: kernels test the element type in their loops.
inline bool is_float(DT t) { return t == DT::F32 || t == DT::F64 || t == DT::F16 || t == DT::BF16; }
inline bool is_string(DT t) { return t == DT::Str; }
inline bool is_int_storage(DT t) { return !is_float(t) && !is_string(t) && t != DT::Undefined; }
bool is_signed_int(DT t);
bool is_unsigned_int(DT t);
unsigned dt_bytes(DT t);  // bytes per element as stored on disk (string: 0)

// Rounds a value held as double to the precision of a floating type.
double round_to(DT t, double v);
// Wraps an integer held as int64 to the width of an integer type (bool: 0/1).
int64_t wrap_to(DT t, int64_t v);
// Converts a double to an integer type as a C cast / numpy astype would (truncation, NaN -> 0, saturation
// for out-of-range values into int64 then wrap).
int64_t double_to_int(DT t, double v);

uint16_t f32_to_f16_bits(float f);
float f16_bits_to_f32(uint16_t h);
uint16_t f32_to_bf16_bits(float f);
float bf16_bits_to_f32(uint16_t h);

// What went wrong while executing; the executor turns these into results, never into crashes.
enum class ErrKind { Unsupported, Resource, Invalid, Timeout };
struct ExecError : std::runtime_error {
  ErrKind kind;
  ExecError(ErrKind k, const std::string& m) : std::runtime_error(m), kind(k) {}
};
[[noreturn]] void fail(const std::string& msg);  // ErrKind::Invalid

// The whole command's time limit (`run` / `diff --timeout SECONDS`), beside each run's own: no run starts after it,
// and a run under way stops there.
struct Deadline {
  using Clock = std::chrono::steady_clock;
  Clock::time_point at = Clock::time_point::max();  // max(): none
  int64_t seconds = 0;                              // as given, for messages
  // `seconds` from now; 0 or less: none.
  static Deadline after(int64_t seconds);
  bool passed() const { return at != Clock::time_point::max() && Clock::now() > at; }
  // The earlier of this deadline and `ms` from now (a run's own limit).
  Clock::time_point with_run_limit(int64_t ms) const;
  // "the command's time limit (--timeout 600 s) was reached"
  std::string reached() const;
};

struct Limits {
  int64_t max_elements = 100'000'000;       // per tensor
  int64_t max_total_bytes = 2LL << 30;      // live bytes held by all tensors of one run
  int64_t max_loop_iterations = 1'000'000;  // per Loop / WHILE execution
  int64_t timeout_ms = 60'000;              // per run (NNAPI's own default is 2 s for loops)
  int max_depth = 64;                       // nesting of If / Loop / functions
  Deadline deadline;                        // the whole command's (none unless --timeout)
};
// The error a run throws past its end (Deadline::with_run_limit): the command's deadline when that is what passed,
// else the run's own limit, limits.timeout_ms.
[[noreturn]] void throw_time_limit(const Limits& limits);

// The guard of the current thread's run (set by Interpreter; defaults apply otherwise).
struct Guard {
  Limits limits;
  int64_t live_bytes = 0;
  int64_t peak_bytes = 0;
};
Guard& guard();

using Dims = std::vector<int64_t>;
// Element count of a shape; throws ExecError(Resource) on negative dims, overflow or above the limit.
int64_t checked_numel(const Dims& d);
// "[2,3]"; past 16 dims the rest is elided and the rank said ("[1,1,...,1 (rank 1000)]"): a message stays short
// whatever shape a file declares.
std::string dims_str(const Dims& d);
// A string value as a message shows it: quoted, and when longer than `max_bytes` cut there (at a UTF-8 character's
// start) with its length said: "\"abc…\" (200000000 bytes)".
std::string quoted_cut(const std::string& s, size_t max_bytes = 64);

// Holds `bytes` against the live-bytes limit while alive; copies hold again.
class Hold {
 public:
  Hold() = default;
  explicit Hold(int64_t bytes);
  Hold(const Hold& o) : Hold(o.bytes_) {}
  Hold& operator=(const Hold& o);
  Hold(Hold&& o) noexcept : bytes_(o.bytes_) { o.bytes_ = 0; }
  Hold& operator=(Hold&& o) noexcept;
  ~Hold();

 private:
  int64_t bytes_ = 0;
};

struct Tensor {
  DT dt = DT::Undefined;
  Dims shape;
  std::vector<double> f;       // floating types
  std::vector<int64_t> i;      // integer types and bool
  std::vector<std::string> s;  // strings
  Hold hold;

  Tensor() = default;
  Tensor(DT t, Dims d);  // zero-filled, guarded
  int64_t numel() const;
  size_t rank() const { return shape.size(); }
  // Element access as double / int64 regardless of storage.
  // Bounds-checked element access as double / int64 regardless of storage (throws ExecError).
  double getf(int64_t k) const {
    if (k < 0 || k >= static_cast<int64_t>(is_float(dt) ? f.size() : i.size())) out_of_range(k);
    return is_float(dt) ? f[k] : static_cast<double>(i[k]);
  }
  [[noreturn]] void out_of_range(int64_t k) const;
  int64_t geti(int64_t k) const;
  std::string describe() const;  // "f32[2,3]"
};

using TensorP = std::shared_ptr<const Tensor>;

// A value in a graph: a tensor, a sequence of values, or an optional value.
struct Value {
  enum class Kind { None, Tensor, Sequence, Optional };
  Kind kind = Kind::None;
  TensorP t;
  std::shared_ptr<const std::vector<Value>> seq;
  std::shared_ptr<const Value> opt;  // Optional: null when empty
  static Value tensor(Tensor x) {
    Value v;
    v.kind = Kind::Tensor;
    v.t = std::make_shared<const Tensor>(std::move(x));
    return v;
  }
  static Value tensor(TensorP x) {
    Value v;
    v.kind = Kind::Tensor;
    v.t = std::move(x);
    return v;
  }
  static Value sequence(std::vector<Value> xs) {
    Value v;
    v.kind = Kind::Sequence;
    v.seq = std::make_shared<const std::vector<Value>>(std::move(xs));
    return v;
  }
  static Value optional(std::shared_ptr<const Value> x) {
    Value v;
    v.kind = Kind::Optional;
    v.opt = std::move(x);
    return v;
  }
  bool is_tensor() const { return kind == Kind::Tensor && t; }
  std::string describe() const;
};

// Converts a scalar or tensor to another element type (ONNX Cast semantics).
Tensor cast_tensor(const Tensor& x, DT to);
// A tensor of `dt` and shape `d` from its elements stored little-endian in `bytes` (an IR Const's, a TFLite
// buffer's), which must hold exactly numel x dt_bytes(dt) bytes (else ExecError). Strings are not stored so.
Tensor tensor_from_le_bytes(DT dt, const Dims& d, std::string_view bytes);
// Rounds/wraps all elements to the tensor's own type.
void normalize(Tensor& x);

}  // namespace condlint::exec
