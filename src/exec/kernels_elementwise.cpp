// Elementwise kernels: unary math, broadcasting binary arithmetic, comparisons, logic, activations.
#include <cmath>
#include <limits>

#include "exec/kernel_util.hpp"

namespace condlint::exec {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <typename FF, typename FI>
Tensor binary(const Tensor& a, const Tensor& b, DT out, FF ff, FI fi) {
  if (is_string(a.dt) || is_string(b.dt)) fail("string operands are not allowed here");
  const Dims o = broadcast_shapes({&a.shape, &b.shape});
  Tensor r(out, o);
  const std::array<Dims, 2> st{bstrides(a.shape, o), bstrides(b.shape, o)};
  const bool fl = is_float(a.dt) || is_float(b.dt);
  const bool of = is_float(out);
  for_broadcast(o, st, [&](int64_t k, const std::array<int64_t, 2>& ix) {
    if (fl) {
      const double v = ff(a.getf(ix[0]), b.getf(ix[1]));
      if (of) r.f[k] = v;
      else r.i[k] = static_cast<int64_t>(v);
    } else {
      const int64_t v = fi(a.i[ix[0]], b.i[ix[1]]);
      if (of) r.f[k] = static_cast<double>(v);
      else r.i[k] = v;
    }
  });
  normalize(r);
  return r;
}

void same_type(const OpCtx& c, size_t a, size_t b) {
  if (c.t(a).dt != c.t(b).dt)
    fail(std::string("operands have different element types ") + dt_name(c.t(a).dt) + " and " + dt_name(c.t(b).dt));
}

// ---- arithmetic
void k_add(OpCtx& c) {
  same_type(c, 0, 1);
  c.set(0, binary(
               c.t(0), c.t(1), c.t(0).dt, [](double x, double y) { return x + y; },
               [](int64_t x, int64_t y) {
                 return static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
               }));
}
void k_sub(OpCtx& c) {
  same_type(c, 0, 1);
  c.set(0, binary(
               c.t(0), c.t(1), c.t(0).dt, [](double x, double y) { return x - y; },
               [](int64_t x, int64_t y) {
                 return static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
               }));
}
void k_mul(OpCtx& c) {
  same_type(c, 0, 1);
  c.set(0, binary(
               c.t(0), c.t(1), c.t(0).dt, [](double x, double y) { return x * y; },
               [](int64_t x, int64_t y) {
                 return static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
               }));
}
void k_div(OpCtx& c) {
  same_type(c, 0, 1);
  const bool u64 = c.t(0).dt == DT::U64;
  c.set(0, binary(
               c.t(0), c.t(1), c.t(0).dt, [](double x, double y) { return x / y; },
               [u64](int64_t x, int64_t y) -> int64_t {
                 if (y == 0) fail("integer division by zero");
                 if (u64) return static_cast<int64_t>(static_cast<uint64_t>(x) / static_cast<uint64_t>(y));
                 if (x == INT64_MIN && y == -1) return INT64_MIN;
                 return x / y;
               }));
}
void k_mod(OpCtx& c) {
  same_type(c, 0, 1);
  const bool fm = c.attr_i("fmod", 0) != 0;
  c.set(0, binary(
               c.t(0), c.t(1), c.t(0).dt,
               [fm](double x, double y) {
                 double r = std::fmod(x, y);
                 if (!fm && r != 0 && ((r < 0) != (y < 0))) r += y;
                 return r;
               },
               [fm](int64_t x, int64_t y) -> int64_t {
                 if (y == 0) fail("integer modulo by zero");
                 if (y == -1) return 0;
                 int64_t r = x % y;
                 if (!fm && r != 0 && ((r < 0) != (y < 0))) r += y;
                 return r;
               }));
}
void k_pow(OpCtx& c) {
  const Tensor& a = c.t(0);
  const Tensor& b = c.t(1);
  const Dims o = broadcast_shapes({&a.shape, &b.shape});
  Tensor r(a.dt, o);
  const std::array<Dims, 2> st{bstrides(a.shape, o), bstrides(b.shape, o)};
  for_broadcast(o, st, [&](int64_t k, const std::array<int64_t, 2>& ix) {
    if (is_float(a.dt)) {
      r.f[k] = std::pow(a.getf(ix[0]), b.getf(ix[1]));
    } else if (!is_float(b.dt)) {
      // integer power by repeated squaring (wraps like numpy)
      int64_t base = a.i[ix[0]], e = b.i[ix[1]];
      if (e < 0) {
        r.i[k] = base == 1 ? 1 : 0;
        return;
      }
      uint64_t res = 1, bb = static_cast<uint64_t>(base);
      while (e) {
        if (e & 1) res *= bb;
        bb *= bb;
        e >>= 1;
      }
      r.i[k] = static_cast<int64_t>(res);
    } else {
      r.i[k] = double_to_int(a.dt, std::pow(a.getf(ix[0]), b.getf(ix[1])));
    }
  });
  normalize(r);
  c.set(0, std::move(r));
}
void k_prelu(OpCtx& c) {
  c.set(0, binary(
               c.t(0), c.t(1), c.t(0).dt, [](double x, double s) { return x < 0 ? s * x : x; },
               [](int64_t x, int64_t s) { return x < 0 ? s * x : x; }));
}
void k_bitshift(OpCtx& c) {
  const bool left = c.attr_s("direction", "") == "LEFT";
  const DT dt = c.t(0).dt;
  const unsigned bits = dt_bytes(dt) * 8;
  c.set(0, binary(
               c.t(0), c.t(1), dt, [](double x, double) { return x; },
               [left, bits](int64_t x, int64_t y) -> int64_t {
                 const uint64_t ux = static_cast<uint64_t>(x);
                 if (y < 0 || static_cast<uint64_t>(y) >= bits) return 0;
                 return static_cast<int64_t>(left ? ux << y : ux >> y);
               }));
}

// ---- variadic
template <typename FF, typename FI>
void variadic(OpCtx& c, FF ff, FI fi, bool mean = false) {
  if (!c.has(0)) fail("needs at least one input");
  Tensor acc = c.t(0);
  for (size_t k = 1; k < c.n_in(); ++k) acc = binary(acc, c.t(k), acc.dt, ff, fi);
  if (mean) {
    const double n = static_cast<double>(c.n_in());
    for (double& v : acc.f) v /= n;
    for (int64_t& v : acc.i) v /= static_cast<int64_t>(n);
    normalize(acc);
  }
  c.set(0, std::move(acc));
}
void k_max(OpCtx& c) {
  const bool u = c.t(0).dt == DT::U64;
  variadic(
      c, [](double x, double y) { return std::isnan(x) || std::isnan(y) ? kNaN : std::max(x, y); },
      [u](int64_t x, int64_t y) { return u ? static_cast<int64_t>(std::max<uint64_t>(x, y)) : std::max(x, y); });
}
void k_min(OpCtx& c) {
  const bool u = c.t(0).dt == DT::U64;
  variadic(
      c, [](double x, double y) { return std::isnan(x) || std::isnan(y) ? kNaN : std::min(x, y); },
      [u](int64_t x, int64_t y) { return u ? static_cast<int64_t>(std::min<uint64_t>(x, y)) : std::min(x, y); });
}
void k_sum(OpCtx& c) {
  variadic(
      c, [](double x, double y) { return x + y; }, [](int64_t x, int64_t y) { return x + y; });
}
void k_mean(OpCtx& c) {
  variadic(
      c, [](double x, double y) { return x + y; }, [](int64_t x, int64_t y) { return x + y; }, true);
}

// ---- comparisons and logic
template <typename FF, typename FI>
void compare(OpCtx& c, FF ff, FI fi) {
  const Tensor& a = c.t(0);
  const Tensor& b = c.t(1);
  if (a.dt != b.dt)
    fail(std::string("operands have different element types ") + dt_name(a.dt) + " and " + dt_name(b.dt));
  if (a.dt == DT::U64) {
    c.set(0, binary(a, b, DT::Bool, ff, [fi](int64_t x, int64_t y) -> int64_t {
            // compare as unsigned by flipping the sign bit
            return fi(static_cast<int64_t>(static_cast<uint64_t>(x) ^ (1ULL << 63)),
                      static_cast<int64_t>(static_cast<uint64_t>(y) ^ (1ULL << 63)));
          }));
    return;
  }
  c.set(0, binary(a, b, DT::Bool, ff, fi));
}
void k_equal(OpCtx& c) {
  if (is_string(c.t(0).dt) || is_string(c.t(1).dt)) {
    const Tensor& a = c.t(0);
    const Tensor& b = c.t(1);
    const Dims o = broadcast_shapes({&a.shape, &b.shape});
    Tensor r(DT::Bool, o);
    for_broadcast(o, std::array<Dims, 2>{bstrides(a.shape, o), bstrides(b.shape, o)},
                  [&](int64_t k, const std::array<int64_t, 2>& ix) { r.i[k] = a.s[ix[0]] == b.s[ix[1]]; });
    c.set(0, std::move(r));
    return;
  }
  compare(
      c, [](double x, double y) { return double(x == y); }, [](int64_t x, int64_t y) -> int64_t { return x == y; });
}
void k_less(OpCtx& c) {
  compare(
      c, [](double x, double y) { return double(x < y); }, [](int64_t x, int64_t y) -> int64_t { return x < y; });
}
void k_less_eq(OpCtx& c) {
  compare(
      c, [](double x, double y) { return double(x <= y); }, [](int64_t x, int64_t y) -> int64_t { return x <= y; });
}
void k_greater(OpCtx& c) {
  compare(
      c, [](double x, double y) { return double(x > y); }, [](int64_t x, int64_t y) -> int64_t { return x > y; });
}
void k_greater_eq(OpCtx& c) {
  compare(
      c, [](double x, double y) { return double(x >= y); }, [](int64_t x, int64_t y) -> int64_t { return x >= y; });
}
void k_and(OpCtx& c) {
  c.set(0, binary(
               c.t(0), c.t(1), DT::Bool, [](double x, double y) { return double(x && y); },
               [](int64_t x, int64_t y) -> int64_t { return x && y; }));
}
void k_or(OpCtx& c) {
  c.set(0, binary(
               c.t(0), c.t(1), DT::Bool, [](double x, double y) { return double(x || y); },
               [](int64_t x, int64_t y) -> int64_t { return x || y; }));
}
void k_xor(OpCtx& c) {
  c.set(0, binary(
               c.t(0), c.t(1), DT::Bool, [](double x, double y) { return double((x != 0) != (y != 0)); },
               [](int64_t x, int64_t y) -> int64_t { return (x != 0) != (y != 0); }));
}
void k_bitwise_and(OpCtx& c) {
  c.set(0,
        binary(
            c.t(0), c.t(1), c.t(0).dt, [](double x, double) { return x; }, [](int64_t x, int64_t y) { return x & y; }));
}
void k_bitwise_or(OpCtx& c) {
  c.set(0,
        binary(
            c.t(0), c.t(1), c.t(0).dt, [](double x, double) { return x; }, [](int64_t x, int64_t y) { return x | y; }));
}
void k_bitwise_xor(OpCtx& c) {
  c.set(0,
        binary(
            c.t(0), c.t(1), c.t(0).dt, [](double x, double) { return x; }, [](int64_t x, int64_t y) { return x ^ y; }));
}

// ---- unary
template <typename FF, typename FI>
Tensor unary(const Tensor& x, FF ff, FI fi) {
  if (is_string(x.dt)) fail("string operand is not allowed here");
  Tensor r(x.dt, x.shape);
  const int64_t n = x.numel();
  if (is_float(x.dt))
    for (int64_t k = 0; k < n; ++k) r.f[k] = ff(x.f[k]);
  else
    for (int64_t k = 0; k < n; ++k) r.i[k] = fi(x.i[k]);
  normalize(r);
  return r;
}
template <typename FF>
Tensor unary_float(const OpCtx& c, const Tensor& x, FF ff) {
  if (!is_float(x.dt)) fail(std::string(c.node.op_type()) + " needs a floating-point input, got " + dt_name(x.dt));
  return unary(x, ff, [](int64_t v) { return v; });
}

#define FLOAT_UNARY(NAME, EXPR)                                       \
  void NAME(OpCtx& c) {                                               \
    c.set(0, unary_float(c, c.t(0), [&](double x) { return EXPR; })); \
  }

FLOAT_UNARY(k_sqrt, std::sqrt(x))
FLOAT_UNARY(k_exp, std::exp(x))
FLOAT_UNARY(k_log, std::log(x))
FLOAT_UNARY(k_sin, std::sin(x))
FLOAT_UNARY(k_cos, std::cos(x))
FLOAT_UNARY(k_tan, std::tan(x))
FLOAT_UNARY(k_asin, std::asin(x))
FLOAT_UNARY(k_acos, std::acos(x))
FLOAT_UNARY(k_atan, std::atan(x))
FLOAT_UNARY(k_sinh, std::sinh(x))
FLOAT_UNARY(k_cosh, std::cosh(x))
FLOAT_UNARY(k_tanh, std::tanh(x))
FLOAT_UNARY(k_asinh, std::asinh(x))
FLOAT_UNARY(k_acosh, std::acosh(x))
FLOAT_UNARY(k_atanh, std::atanh(x))
FLOAT_UNARY(k_erf, std::erf(x))
FLOAT_UNARY(k_floor, std::floor(x))
FLOAT_UNARY(k_ceil, std::ceil(x))
FLOAT_UNARY(k_round, std::nearbyint(x))
FLOAT_UNARY(k_reciprocal, 1.0 / x)
FLOAT_UNARY(k_sigmoid, x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x)))
FLOAT_UNARY(k_softplus, std::log1p(std::exp(-std::abs(x))) + std::max(x, 0.0))
FLOAT_UNARY(k_softsign, x / (1.0 + std::abs(x)))
FLOAT_UNARY(k_elu, x >= 0 ? x : c.attr_f("alpha", 1.0f) * (std::exp(x) - 1.0))
FLOAT_UNARY(k_celu,
            std::max(0.0, x) + std::min(0.0, c.attr_f("alpha", 1.0f) * (std::exp(x / c.attr_f("alpha", 1.0f)) - 1.0)))
FLOAT_UNARY(k_selu, c.attr_f("gamma", 1.05070102214813232421875f) *
                        (x > 0 ? x : c.attr_f("alpha", 1.67326319217681884765625f) * (std::exp(x) - 1.0)))
FLOAT_UNARY(k_leaky_relu, x >= 0 ? x : static_cast<double>(c.attr_f("alpha", 0.01f)) * x)
FLOAT_UNARY(k_thresholded_relu, x > c.attr_f("alpha", 1.0f) ? x : 0.0)
FLOAT_UNARY(k_hard_sigmoid, std::max(0.0, std::min(1.0, static_cast<double>(c.attr_f("alpha", 0.2f)) * x +
                                                            static_cast<double>(c.attr_f("beta", 0.5f)))))
FLOAT_UNARY(k_hard_swish, x* std::max(0.0, std::min(1.0, x / 6.0 + 0.5)))
FLOAT_UNARY(k_mish, x* std::tanh(std::log1p(std::exp(x))))

void k_neg(OpCtx& c) {
  c.set(0, unary(
               c.t(0), [](double x) { return -x; },
               [](int64_t x) { return static_cast<int64_t>(0ULL - static_cast<uint64_t>(x)); }));
}
void k_abs(OpCtx& c) {
  const bool u = is_unsigned_int(c.t(0).dt);
  c.set(0, unary(
               c.t(0), [](double x) { return std::abs(x); }, [u](int64_t x) { return u ? x : (x < 0 ? -x : x); }));
}
void k_sign(OpCtx& c) {
  c.set(0, unary(
               c.t(0), [](double x) { return std::isnan(x) ? x : double((x > 0) - (x < 0)); },
               [](int64_t x) -> int64_t { return (x > 0) - (x < 0); }));
}
void k_relu(OpCtx& c) {
  c.set(0, unary(
               c.t(0), [](double x) { return x > 0 ? x : 0.0; },
               [](int64_t x) { return std::max<int64_t>(x, 0); }));
}
void k_not(OpCtx& c) {
  c.set(0, unary(
               c.t(0), [](double x) { return double(x == 0); }, [](int64_t x) -> int64_t { return x == 0; }));
}
void k_bitwise_not(OpCtx& c) {
  c.set(0, unary(
               c.t(0), [](double x) { return x; }, [](int64_t x) { return ~x; }));
}
void k_isnan(OpCtx& c) {
  const Tensor& x = c.t(0);
  Tensor r(DT::Bool, x.shape);
  for (int64_t k = 0; k < x.numel(); ++k) r.i[k] = is_float(x.dt) && std::isnan(x.f[k]);
  c.set(0, std::move(r));
}
void k_isinf(OpCtx& c) {
  const Tensor& x = c.t(0);
  const bool pos = c.attr_i("detect_positive", 1) != 0, neg = c.attr_i("detect_negative", 1) != 0;
  Tensor r(DT::Bool, x.shape);
  for (int64_t k = 0; k < x.numel(); ++k)
    r.i[k] = is_float(x.dt) && std::isinf(x.f[k]) && ((x.f[k] > 0 && pos) || (x.f[k] < 0 && neg));
  c.set(0, std::move(r));
}
void k_shrink(OpCtx& c) {
  const double l = c.attr_f("lambd", 0.5f), b = c.attr_f("bias", 0.0f);
  auto f = [&](double x) { return x < -l ? x + b : x > l ? x - b : 0.0; };
  c.set(0, unary(c.t(0), f, [&](int64_t x) { return static_cast<int64_t>(f(static_cast<double>(x))); }));
}
void k_clip(OpCtx& c) {
  const Tensor& x = c.t(0);
  double lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
  if (c.has_attr("min")) lo = c.attr_f("min", 0);
  if (c.has_attr("max")) hi = c.attr_f("max", 0);
  if (c.has(1)) lo = c.t(1).getf(0);
  if (c.has(2)) hi = c.t(2).getf(0);
  if (is_float(x.dt)) {
    c.set(0, unary(
                 x, [&](double v) { return std::isnan(v) ? v : std::min(std::max(v, lo), hi); },
                 [](int64_t v) { return v; }));
  } else {
    int64_t ilo = c.has(1) ? c.t(1).geti(0) : INT64_MIN, ihi = c.has(2) ? c.t(2).geti(0) : INT64_MAX;
    c.set(0, unary(
                 x, [](double v) { return v; }, [&](int64_t v) { return std::min(std::max(v, ilo), ihi); }));
  }
}
void k_where(OpCtx& c) {
  const Tensor& cond = c.t(0);
  const Tensor& a = c.t(1);
  const Tensor& b = c.t(2);
  if (a.dt != b.dt) fail("Where branches have different element types");
  const Dims o = broadcast_shapes({&cond.shape, &a.shape, &b.shape});
  Tensor r(a.dt, o);
  for_broadcast(o, std::array<Dims, 3>{bstrides(cond.shape, o), bstrides(a.shape, o), bstrides(b.shape, o)},
                [&](int64_t k, const std::array<int64_t, 3>& ix) {
                  if (cond.getf(ix[0]) != 0) copy_elem(a, ix[1], r, k);
                  else copy_elem(b, ix[2], r, k);
                });
  c.set(0, std::move(r));
}
void k_cast(OpCtx& c) {
  const int64_t to = c.attr_i("to", 0);
  if (!dt_known(static_cast<int>(to)))
    throw ExecError(ErrKind::Unsupported,
                    "unsupported op Cast to element type " + std::to_string(to) + " at " + c.path);
  c.set(0, cast_tensor(c.t(0), static_cast<DT>(to)));
}
void k_cast_like(OpCtx& c) { c.set(0, cast_tensor(c.t(0), c.t(1).dt)); }
void k_identity(OpCtx& c) { c.set(0, c.val(0)); }
void k_dropout(OpCtx& c) {
  const bool training = c.has(2) && c.t(2).geti(0) != 0;
  const double ratio = c.has(1) ? c.t(1).getf(0) : c.attr_f("ratio", 0.5f);
  if (training && ratio != 0)
    throw ExecError(ErrKind::Unsupported, "unsupported op Dropout in training mode (random) at " + c.path);
  c.set(0, c.val(0));
  if (c.want(1)) {
    Tensor m(DT::Bool, c.t(0).shape);
    for (auto& v : m.i) v = 1;
    c.set(1, std::move(m));
  }
}

}  // namespace

void register_elementwise(KernelTable& t) {
  t["Add"] = k_add;
  t["Sub"] = k_sub;
  t["Mul"] = k_mul;
  t["Div"] = k_div;
  t["Mod"] = k_mod;
  t["Pow"] = k_pow;
  t["PRelu"] = k_prelu;
  t["BitShift"] = k_bitshift;
  t["Max"] = k_max;
  t["Min"] = k_min;
  t["Sum"] = k_sum;
  t["Mean"] = k_mean;
  t["Equal"] = k_equal;
  t["Less"] = k_less;
  t["LessOrEqual"] = k_less_eq;
  t["Greater"] = k_greater;
  t["GreaterOrEqual"] = k_greater_eq;
  t["And"] = k_and;
  t["Or"] = k_or;
  t["Xor"] = k_xor;
  t["Not"] = k_not;
  t["BitwiseAnd"] = k_bitwise_and;
  t["BitwiseOr"] = k_bitwise_or;
  t["BitwiseXor"] = k_bitwise_xor;
  t["BitwiseNot"] = k_bitwise_not;
  t["Sqrt"] = k_sqrt;
  t["Exp"] = k_exp;
  t["Log"] = k_log;
  t["Sin"] = k_sin;
  t["Cos"] = k_cos;
  t["Tan"] = k_tan;
  t["Asin"] = k_asin;
  t["Acos"] = k_acos;
  t["Atan"] = k_atan;
  t["Sinh"] = k_sinh;
  t["Cosh"] = k_cosh;
  t["Tanh"] = k_tanh;
  t["Asinh"] = k_asinh;
  t["Acosh"] = k_acosh;
  t["Atanh"] = k_atanh;
  t["Erf"] = k_erf;
  t["Floor"] = k_floor;
  t["Ceil"] = k_ceil;
  t["Round"] = k_round;
  t["Reciprocal"] = k_reciprocal;
  t["Sigmoid"] = k_sigmoid;
  t["Softplus"] = k_softplus;
  t["Softsign"] = k_softsign;
  t["Elu"] = k_elu;
  t["Celu"] = k_celu;
  t["Selu"] = k_selu;
  t["LeakyRelu"] = k_leaky_relu;
  t["ThresholdedRelu"] = k_thresholded_relu;
  t["HardSigmoid"] = k_hard_sigmoid;
  t["HardSwish"] = k_hard_swish;
  t["Mish"] = k_mish;
  t["Neg"] = k_neg;
  t["Abs"] = k_abs;
  t["Sign"] = k_sign;
  t["Relu"] = k_relu;
  t["IsNaN"] = k_isnan;
  t["IsInf"] = k_isinf;
  t["Shrink"] = k_shrink;
  t["Clip"] = k_clip;
  t["Where"] = k_where;
  t["Cast"] = k_cast;
  t["CastLike"] = k_cast_like;
  t["Identity"] = k_identity;
  t["Dropout"] = k_dropout;
}

}  // namespace condlint::exec
