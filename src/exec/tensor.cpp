#include "exec/tensor.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

namespace condlint::exec {

bool dt_known(int t) {
  switch (t) {
    case 1:
    case 2:
    case 3:
    case 4:
    case 5:
    case 6:
    case 7:
    case 8:
    case 9:
    case 10:
    case 11:
    case 12:
    case 13:
    case 16: return true;
    default: return false;
  }
}

const char* dt_name(DT t) {
  switch (t) {
    case DT::F32: return "f32";
    case DT::U8: return "u8";
    case DT::I8: return "i8";
    case DT::U16: return "u16";
    case DT::I16: return "i16";
    case DT::I32: return "i32";
    case DT::I64: return "i64";
    case DT::Str: return "string";
    case DT::Bool: return "bool";
    case DT::F16: return "f16";
    case DT::F64: return "f64";
    case DT::U32: return "u32";
    case DT::U64: return "u64";
    case DT::BF16: return "bf16";
    default: return "undefined";
  }
}

bool is_signed_int(DT t) { return t == DT::I8 || t == DT::I16 || t == DT::I32 || t == DT::I64; }
bool is_unsigned_int(DT t) { return t == DT::U8 || t == DT::U16 || t == DT::U32 || t == DT::U64; }

unsigned dt_bytes(DT t) {
  switch (t) {
    case DT::U8:
    case DT::I8:
    case DT::Bool: return 1;
    case DT::U16:
    case DT::I16:
    case DT::F16:
    case DT::BF16: return 2;
    case DT::F32:
    case DT::I32:
    case DT::U32: return 4;
    case DT::F64:
    case DT::I64:
    case DT::U64: return 8;
    default: return 0;
  }
}

uint16_t f32_to_f16_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) return static_cast<uint16_t>(sign | (absx > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (absx >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to inf
  if (absx < 0x38800000u) {                                               // subnormal or zero in half
    float a;
    std::memcpy(&a, &absx, 4);
    // round to nearest even multiple of 2^-24
    const float scaled = a * 16777216.0f;  // 2^24
    const float r = std::nearbyint(scaled);
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(r));
  }
  uint32_t mant = absx & 0x7fffffu;
  int32_t exp = static_cast<int32_t>(absx >> 23) - 127 + 15;
  uint32_t h = (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(sign | h);
}

float f16_bits_to_f32(uint16_t h) {
  const uint32_t sign = (static_cast<uint32_t>(h) & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  float out;
  if (exp == 0) {
    out = std::ldexp(static_cast<float>(mant), -24);
    if (sign) out = -out;
    return out;
  }
  uint32_t x;
  if (exp == 31) x = sign | 0x7f800000u | (mant << 13);
  else x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  std::memcpy(&out, &x, 4);
  return out;
}

uint16_t f32_to_bf16_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  const uint32_t lsb = (x >> 16) & 1u;
  x += 0x7fffu + lsb;
  return static_cast<uint16_t>(x >> 16);
}

float bf16_bits_to_f32(uint16_t h) {
  uint32_t x = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

double round_to(DT t, double v) {
  switch (t) {
    case DT::F32: return static_cast<double>(static_cast<float>(v));
    case DT::F16: return f16_bits_to_f32(f32_to_f16_bits(static_cast<float>(v)));
    case DT::BF16: return bf16_bits_to_f32(f32_to_bf16_bits(static_cast<float>(v)));
    default: return v;
  }
}

int64_t wrap_to(DT t, int64_t v) {
  switch (t) {
    case DT::Bool: return v != 0;
    case DT::I8: return static_cast<int8_t>(v);
    case DT::U8: return static_cast<uint8_t>(v);
    case DT::I16: return static_cast<int16_t>(v);
    case DT::U16: return static_cast<uint16_t>(v);
    case DT::I32: return static_cast<int32_t>(v);
    case DT::U32: return static_cast<uint32_t>(v);
    default: return v;
  }
}

int64_t double_to_int(DT t, double v) {
  if (t == DT::Bool) return v != 0.0;
  if (std::isnan(v)) return t == DT::I64 ? std::numeric_limits<int64_t>::min() : 0;
  if (t == DT::U64) {
    if (v <= 0) return static_cast<int64_t>(static_cast<uint64_t>(static_cast<int64_t>(std::max(v, -9.2e18))));
    if (v >= 18446744073709551615.0) return -1;
    return static_cast<int64_t>(static_cast<uint64_t>(v));
  }
  if (v >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  if (v <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  return wrap_to(t, static_cast<int64_t>(v));
}

[[noreturn]] void fail(const std::string& msg) { throw ExecError(ErrKind::Invalid, msg); }

Guard& guard() {
  thread_local Guard g;
  return g;
}

Deadline Deadline::after(int64_t seconds) {
  Deadline d;
  if (seconds <= 0) return d;
  d.seconds = seconds;
  // Past about 290 years from now the clock would overflow: that is no deadline either.
  if (seconds < 9'000'000'000LL) d.at = Clock::now() + std::chrono::seconds(seconds);
  return d;
}

Deadline::Clock::time_point Deadline::with_run_limit(int64_t ms) const {
  const auto now = Clock::now();
  const auto room = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::time_point::max() - now).count();
  const auto own = ms >= room ? Clock::time_point::max() : now + std::chrono::milliseconds(std::max<int64_t>(ms, 0));
  return std::min(own, at);
}

std::string Deadline::reached() const {
  return "the command's time limit (--timeout " + std::to_string(seconds) + " s) was reached";
}

void throw_time_limit(const Limits& limits) {
  if (limits.deadline.passed()) throw ExecError(ErrKind::Timeout, limits.deadline.reached() + " during the run");
  throw ExecError(ErrKind::Timeout, "run exceeded the time limit of " + std::to_string(limits.timeout_ms) + " ms");
}

std::string dims_str(const Dims& d) {
  constexpr size_t kShown = 16;
  std::string s = "[";
  for (size_t k = 0; k < d.size() && k < kShown; ++k) s += (k ? "," : "") + std::to_string(d[k]);
  if (d.size() > kShown) s += ",...," + std::to_string(d.back()) + " (rank " + std::to_string(d.size()) + ")";
  return s + "]";
}

std::string quoted_cut(const std::string& s, size_t max_bytes) {
  if (s.size() <= max_bytes) return "\"" + s + "\"";
  size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xc0) == 0x80) --end;  // not inside a character
  return "\"" + s.substr(0, end) + "\u2026\" (" + std::to_string(s.size()) + " bytes)";
}

int64_t checked_numel(const Dims& d) {
  // The product of the non-zero dims must fit even when a zero makes the tensor empty: strides and the
  // element count are computed from the other dims too.
  int64_t n = 1;
  bool overflow = false, empty = false;
  for (int64_t x : d) {
    if (x < 0) throw ExecError(ErrKind::Invalid, "negative dimension in shape " + dims_str(d));
    if (x == 0) empty = true;
    else if (n > std::numeric_limits<int64_t>::max() / x) overflow = true;
    else n *= x;
  }
  if (empty && !overflow) return 0;
  if (overflow || n > guard().limits.max_elements)
    throw ExecError(ErrKind::Resource, "tensor of shape " + dims_str(d) + " has " +
                                           (overflow ? std::string("more than 2^63") : std::to_string(n)) +
                                           " elements, above the limit of " +
                                           std::to_string(guard().limits.max_elements));
  return n;
}

Hold::Hold(int64_t bytes) : bytes_(bytes) {
  Guard& g = guard();
  if (g.live_bytes + bytes > g.limits.max_total_bytes) {
    bytes_ = 0;
    throw ExecError(ErrKind::Resource, "tensors would hold " + std::to_string(g.live_bytes + bytes) +
                                           " bytes, above the limit of " + std::to_string(g.limits.max_total_bytes));
  }
  g.live_bytes += bytes;
  if (g.live_bytes > g.peak_bytes) g.peak_bytes = g.live_bytes;
}
Hold& Hold::operator=(const Hold& o) {
  if (this != &o) {
    Hold tmp(o.bytes_);
    guard().live_bytes -= bytes_;
    bytes_ = tmp.bytes_;
    tmp.bytes_ = 0;
  }
  return *this;
}
Hold& Hold::operator=(Hold&& o) noexcept {
  if (this != &o) {
    guard().live_bytes -= bytes_;
    bytes_ = o.bytes_;
    o.bytes_ = 0;
  }
  return *this;
}
Hold::~Hold() { guard().live_bytes -= bytes_; }

Tensor::Tensor(DT t, Dims d) : dt(t), shape(std::move(d)) {
  const int64_t n = checked_numel(shape);
  // What the storage really takes: a string element is a std::string object before any characters.
  hold = Hold(n * static_cast<int64_t>(is_string(t) ? sizeof(std::string) : 8) + 64);
  if (is_float(t)) f.assign(n, 0.0);
  else if (is_string(t)) s.assign(n, std::string());
  else i.assign(n, 0);
}

int64_t Tensor::numel() const {
  for (int64_t x : shape)
    if (x == 0) return 0;
  int64_t n = 1;
  for (int64_t x : shape) n *= x;  // bounded: the constructor checked the product (checked_numel)
  return n;
}

void Tensor::out_of_range(int64_t k) const {
  throw ExecError(ErrKind::Invalid, "element " + std::to_string(k) + " of " + describe() + " does not exist");
}

int64_t Tensor::geti(int64_t k) const {
  if (k < 0 || k >= static_cast<int64_t>(is_float(dt) ? f.size() : i.size())) out_of_range(k);
  if (is_float(dt)) return double_to_int(DT::I64, f[k]);
  return i[k];
}

std::string Tensor::describe() const { return std::string(dt_name(dt)) + dims_str(shape); }

std::string Value::describe() const {
  switch (kind) {
    case Kind::Tensor: return t ? t->describe() : "tensor(null)";
    case Kind::Sequence: return "sequence(" + std::to_string(seq ? seq->size() : 0) + ")";
    case Kind::Optional: return opt ? "optional(" + opt->describe() + ")" : "optional(none)";
    default: return "none";
  }
}

namespace {
std::string float_to_string(double v, DT from) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "INF" : "-INF";
  char buf[64];
  std::to_chars_result r;
  if (from == DT::F64) r = std::to_chars(buf, buf + sizeof buf, v);
  else r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(v));
  return std::string(buf, r.ptr);
}

double string_to_double(const std::string& s) {
  std::string t;
  for (char c : s) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t == "nan" || t == "+nan" || t == "-nan") return std::numeric_limits<double>::quiet_NaN();
  if (t == "inf" || t == "+inf" || t == "infinity" || t == "+infinity") return std::numeric_limits<double>::infinity();
  if (t == "-inf" || t == "-infinity") return -std::numeric_limits<double>::infinity();
  try {
    size_t pos = 0;
    double v = std::stod(s, &pos);
    return v;
  } catch (...) {
    fail("cannot convert string " + quoted_cut(s) + " to a number");
  }
}
}  // namespace

Tensor tensor_from_le_bytes(DT dt, const Dims& d, std::string_view bytes) {
  const unsigned w = dt_bytes(dt);
  if (w == 0) fail(std::string("cannot read ") + dt_name(dt) + " elements from bytes");
  const int64_t n = checked_numel(d);  // the element limit, before anything is allocated
  if (static_cast<uint64_t>(bytes.size()) != static_cast<uint64_t>(n) * w)
    fail(std::to_string(bytes.size()) + " bytes do not hold " + dt_name(dt) + dims_str(d) + " (" +
         std::to_string(static_cast<uint64_t>(n) * w) + " bytes)");
  Tensor t(dt, d);
  for (int64_t e = 0; e < n; ++e) {
    uint64_t v = 0;
    for (unsigned b = 0; b < w; ++b)
      v |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[static_cast<size_t>(e) * w + b])) << (8 * b);
    switch (dt) {
      case DT::F32: {
        float x;
        const uint32_t u = static_cast<uint32_t>(v);
        std::memcpy(&x, &u, 4);
        t.f[e] = x;
        break;
      }
      case DT::F64: {
        double x;
        std::memcpy(&x, &v, 8);
        t.f[e] = x;
        break;
      }
      case DT::F16: t.f[e] = f16_bits_to_f32(static_cast<uint16_t>(v)); break;
      case DT::BF16: t.f[e] = bf16_bits_to_f32(static_cast<uint16_t>(v)); break;
      case DT::Bool: t.i[e] = v != 0; break;
      case DT::I8: t.i[e] = static_cast<int8_t>(v); break;
      case DT::I16: t.i[e] = static_cast<int16_t>(v); break;
      case DT::I32: t.i[e] = static_cast<int32_t>(v); break;
      default: t.i[e] = static_cast<int64_t>(v); break;
    }
  }
  return t;
}

Tensor cast_tensor(const Tensor& x, DT to) {
  Tensor y(to, x.shape);
  const int64_t n = x.numel();
  if (is_string(to)) {
    for (int64_t k = 0; k < n; ++k) {
      if (is_string(x.dt)) y.s[k] = x.s[k];
      else if (is_float(x.dt)) y.s[k] = float_to_string(x.f[k], x.dt);
      else if (x.dt == DT::U64) y.s[k] = std::to_string(static_cast<uint64_t>(x.i[k]));
      else if (x.dt == DT::Bool) y.s[k] = x.i[k] ? "True" : "False";
      else y.s[k] = std::to_string(x.i[k]);
    }
    return y;
  }
  for (int64_t k = 0; k < n; ++k) {
    if (is_string(x.dt)) {
      const double v = string_to_double(x.s[k]);
      if (is_float(to)) y.f[k] = round_to(to, v);
      else y.i[k] = double_to_int(to, v);
    } else if (is_float(x.dt)) {
      if (is_float(to)) y.f[k] = round_to(to, x.f[k]);
      else y.i[k] = double_to_int(to, x.f[k]);
    } else {
      const int64_t v = x.i[k];
      if (is_float(to))
        y.f[k] = round_to(to, x.dt == DT::U64 ? static_cast<double>(static_cast<uint64_t>(v)) : static_cast<double>(v));
      else y.i[k] = wrap_to(to, v);
    }
  }
  return y;
}

void normalize(Tensor& x) {
  if (is_float(x.dt)) {
    if (x.dt != DT::F64)
      for (double& v : x.f) v = round_to(x.dt, v);
  } else if (!is_string(x.dt)) {
    if (x.dt != DT::I64 && x.dt != DT::U64)
      for (int64_t& v : x.i) v = wrap_to(x.dt, v);
  }
}

}  // namespace condlint::exec
