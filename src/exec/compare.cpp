#include "exec/compare.hpp"

#include <cmath>
#include <sstream>

#include "exec/kernel_util.hpp"

namespace condlint::exec {

Tolerance default_tolerance(DT t) {
  switch (t) {
    case DT::F64: return {1e-7, 1e-5};
    case DT::F32: return {1e-5, 1e-3};
    case DT::F16: return {1e-3, 1e-2};
    case DT::BF16: return {1e-2, 2e-2};
    default: return {0, 0};
  }
}

namespace {

std::string index_str(const Dims& shape, int64_t k) {
  // Past 16 dims the flat position says where, not an index as long as the shape.
  if (shape.size() > 16) return "[element " + std::to_string(k) + " of rank " + std::to_string(shape.size()) + "]";
  const Dims st = strides_of(shape);
  std::string s = "[";
  for (size_t a = 0; a < shape.size(); ++a) {
    s += (a ? "," : "") + std::to_string(st[a] ? (k / st[a]) % std::max<int64_t>(shape[a], 1) : 0);
  }
  return s + "]";
}

std::string fmt(double v) {
  std::ostringstream o;
  o.precision(9);
  o << v;
  return o.str();
}

void compare_tensor(const Tensor& a, const Tensor& e, const Tolerance& tol, Comparison& r, const std::string& prefix) {
  if (a.dt != e.dt) {
    r.ok = false;
    r.reason = prefix + "element type " + dt_name(a.dt) + ", expected " + dt_name(e.dt);
    return;
  }
  if (a.shape != e.shape) {
    r.ok = false;
    r.reason = prefix + "shape " + dims_str(a.shape) + ", expected " + dims_str(e.shape);
    return;
  }
  const int64_t n = e.numel();
  for (int64_t k = 0; k < n; ++k) {
    bool good;
    std::string got, want;
    if (is_string(e.dt)) {
      good = a.s[k] == e.s[k];
      if (!good) got = quoted_cut(a.s[k]), want = quoted_cut(e.s[k]);
    } else if (is_float(e.dt)) {
      const double x = a.f[k], y = e.f[k];
      if (std::isnan(y) || std::isnan(x)) good = std::isnan(x) && std::isnan(y);
      else if (std::isinf(y) || std::isinf(x)) good = x == y;
      else {
        const double d = std::abs(x - y);
        r.max_abs = std::max(r.max_abs, d);
        if (y != 0) r.max_rel = std::max(r.max_rel, d / std::abs(y));
        good = d <= tol.atol + tol.rtol * std::abs(y);
      }
      if (!good) got = fmt(x), want = fmt(y);
    } else {
      const int64_t x = a.i[k], y = e.i[k];
      const double d = std::abs(static_cast<double>(x) - static_cast<double>(y));
      r.max_abs = std::max(r.max_abs, d);
      if (y != 0) r.max_rel = std::max(r.max_rel, d / std::abs(static_cast<double>(y)));
      good = d <= tol.atol + tol.rtol * std::abs(static_cast<double>(y));
      if (!good) got = std::to_string(x), want = std::to_string(y);
    }
    if (!good) {
      ++r.mismatches;
      if (r.ok) {
        r.ok = false;
        r.first_index = prefix + index_str(e.shape, k);
        r.reason = "first mismatch at " + r.first_index + ": got " + got + ", expected " + want;
      }
    }
  }
}

void compare_rec(const Value& a, const Value& e, std::optional<double> atol, std::optional<double> rtol, Comparison& r,
                 const std::string& prefix, int depth) {
  if (depth > 64) {
    r.ok = false;
    r.reason = "values nested too deeply";
    return;
  }
  if (a.kind != e.kind) {
    r.ok = false;
    r.reason = prefix + "got a " + a.describe() + ", expected a " + e.describe();
    return;
  }
  switch (e.kind) {
    case Value::Kind::Tensor: {
      Tolerance t = default_tolerance(e.t->dt);
      if (atol) t.atol = *atol;
      if (rtol) t.rtol = *rtol;
      if (r.tolerance.empty()) r.tolerance = "atol=" + fmt(t.atol) + " rtol=" + fmt(t.rtol);
      compare_tensor(*a.t, *e.t, t, r, prefix);
      return;
    }
    case Value::Kind::Sequence: {
      if (a.seq->size() != e.seq->size()) {
        r.ok = false;
        r.reason = prefix + "sequence of " + std::to_string(a.seq->size()) + " elements, expected " +
                   std::to_string(e.seq->size());
        return;
      }
      for (size_t k = 0; k < e.seq->size() && r.ok; ++k)
        compare_rec((*a.seq)[k], (*e.seq)[k], atol, rtol, r, prefix + "seq[" + std::to_string(k) + "]", depth + 1);
      return;
    }
    case Value::Kind::Optional: {
      if (!a.opt != !e.opt) {
        r.ok = false;
        r.reason = prefix + (a.opt ? "optional holds a value, expected none" : "optional is empty, expected a value");
        return;
      }
      if (e.opt) compare_rec(*a.opt, *e.opt, atol, rtol, r, prefix + "opt", depth + 1);
      return;
    }
    default: return;
  }
}

}  // namespace

Comparison compare_values(const Value& actual, const Value& expected, std::optional<double> atol,
                          std::optional<double> rtol) {
  Comparison r;
  compare_rec(actual, expected, atol, rtol, r, "", 0);
  if (!r.ok && r.mismatches > 1) r.reason += " (" + std::to_string(r.mismatches) + " elements differ)";
  return r;
}

}  // namespace condlint::exec
