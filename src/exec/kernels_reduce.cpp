// Reductions, arg-reductions, softmax family, CumSum, TopK.
#include <cmath>
#include <limits>
#include <numeric>

#include "exec/kernel_util.hpp"

namespace condlint::exec {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Reduction {
  Dims out_keep;  // output shape with kept dims (size 1 on reduced axes)
  Dims out;       // final output shape
  std::vector<bool> reduced;
  bool identity = false;  // no axes and noop_with_empty_axes
};

Reduction plan(OpCtx& c, const Tensor& x, bool axes_from_input) {
  Reduction p;
  const int64_t r = static_cast<int64_t>(x.rank());
  std::vector<int64_t> axes;
  if (axes_from_input && c.has(1)) axes = to_i64s(c.t(1));
  else if (c.has_attr("axes")) axes = c.attr_ints("axes");
  else if (c.has(1)) axes = to_i64s(c.t(1));
  const bool keep = c.attr_i("keepdims", 1) != 0;
  p.reduced.assign(r, false);
  if (axes.empty()) {
    if (c.attr_i("noop_with_empty_axes", 0)) p.identity = true;
    else p.reduced.assign(r, true);
  }
  for (int64_t a : axes) p.reduced[norm_axis(a, r)] = true;
  for (int64_t a = 0; a < r; ++a) {
    p.out_keep.push_back(p.reduced[a] ? 1 : x.shape[a]);
    if (!p.reduced[a]) p.out.push_back(x.shape[a]);
    else if (keep) p.out.push_back(1);
  }
  return p;
}

enum class Red { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };

template <Red R>
void k_reduce(OpCtx& c) {
  const Tensor& x = c.t(0);
  Reduction p = plan(c, x, true);
  if (p.identity) {
    c.set(0, x);
    return;
  }
  Tensor out(x.dt, p.out);
  const int64_t on = out.numel();
  const Dims ost = bstrides(p.out_keep, x.shape);  // maps an input element to its output slot
  std::vector<double> acc(on, R == Red::Prod ? 1.0 : R == Red::Max ? -kInf : R == Red::Min ? kInf : 0.0);
  std::vector<int64_t> iacc(on, R == Red::Prod ? 1 : R == Red::Max ? INT64_MIN : R == Red::Min ? INT64_MAX : 0);
  std::vector<int64_t> cnt(on, 0);
  const bool fl = is_float(x.dt);
  double shift_max = 0;
  std::vector<double> mx;
  if (R == Red::LogSumExp) {
    mx.assign(on, -kInf);
    for_broadcast(x.shape, std::array<Dims, 1>{ost},
                  [&](int64_t k, const std::array<int64_t, 1>& ix) { mx[ix[0]] = std::max(mx[ix[0]], x.getf(k)); });
  }
  (void)shift_max;
  for_broadcast(x.shape, std::array<Dims, 1>{ost}, [&](int64_t k, const std::array<int64_t, 1>& ix) {
    const int64_t o = ix[0];
    ++cnt[o];
    if (!fl && (R == Red::Sum || R == Red::Max || R == Red::Min || R == Red::Prod || R == Red::SumSquare ||
                R == Red::L1 || R == Red::Mean)) {
      const int64_t v = x.i[k];
      switch (R) {
        case Red::Sum:
        case Red::Mean: iacc[o] += v; break;
        case Red::Max: iacc[o] = std::max(iacc[o], v); break;
        case Red::Min: iacc[o] = std::min(iacc[o], v); break;
        case Red::Prod: iacc[o] *= v; break;
        case Red::SumSquare: iacc[o] += v * v; break;
        case Red::L1: iacc[o] += v < 0 ? -v : v; break;
        default: break;
      }
      return;
    }
    const double v = x.getf(k);
    switch (R) {
      case Red::Sum:
      case Red::Mean:
      case Red::LogSum: acc[o] += v; break;
      case Red::Max: acc[o] = (std::isnan(v) || std::isnan(acc[o])) ? std::nan("") : std::max(acc[o], v); break;
      case Red::Min: acc[o] = (std::isnan(v) || std::isnan(acc[o])) ? std::nan("") : std::min(acc[o], v); break;
      case Red::Prod: acc[o] *= v; break;
      case Red::L1: acc[o] += std::abs(v); break;
      case Red::L2:
      case Red::SumSquare: acc[o] += v * v; break;
      case Red::LogSumExp: acc[o] += std::exp(v - mx[o]); break;
    }
  });
  for (int64_t o = 0; o < on; ++o) {
    if (!fl && (R == Red::Sum || R == Red::Max || R == Red::Min || R == Red::Prod || R == Red::SumSquare ||
                R == Red::L1 || R == Red::Mean)) {
      out.i[o] = R == Red::Mean ? (cnt[o] ? iacc[o] / cnt[o] : 0) : iacc[o];
      continue;
    }
    double v = acc[o];
    switch (R) {
      case Red::Mean: v = cnt[o] ? v / static_cast<double>(cnt[o]) : std::nan(""); break;
      case Red::L2: v = std::sqrt(v); break;
      case Red::LogSum: v = std::log(v); break;
      case Red::LogSumExp: v = std::isinf(mx[o]) ? mx[o] : std::log(v) + mx[o]; break;
      default: break;
    }
    if (fl) out.f[o] = v;
    else out.i[o] = double_to_int(out.dt, v);
  }
  normalize(out);
  c.set(0, std::move(out));
}

template <bool Max>
void k_arg(OpCtx& c) {
  const Tensor& x = c.t(0);
  const int64_t axis = norm_axis(c.attr_i("axis", 0), x.rank());
  const bool keep = c.attr_i("keepdims", 1) != 0;
  const bool last = c.attr_i("select_last_index", 0) != 0;
  Dims od;
  for (size_t a = 0; a < x.rank(); ++a)
    if (static_cast<int64_t>(a) != axis) od.push_back(x.shape[a]);
    else if (keep) od.push_back(1);
  Tensor out(DT::I64, od);
  int64_t outer = 1, inner = 1;
  for (int64_t a = 0; a < axis; ++a) outer *= x.shape[a];
  for (size_t a = axis + 1; a < x.rank(); ++a) inner *= x.shape[a];
  const int64_t len = x.shape[axis];
  if (len == 0) fail("ArgMax/ArgMin over an empty axis");
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t best = 0;
      double bv = x.getf(o * len * inner + i);
      for (int64_t j = 1; j < len; ++j) {
        const double v = x.getf((o * len + j) * inner + i);
        const bool better = Max ? (last ? v >= bv : v > bv) : (last ? v <= bv : v < bv);
        if (better) {
          best = j;
          bv = v;
        }
      }
      out.i[o * inner + i] = best;
    }
  c.set(0, std::move(out));
}

enum class SM { Soft, LogSoft, Hard };
template <SM M>
void k_softmax(OpCtx& c) {
  const Tensor& x = c.t(0);
  if (!is_float(x.dt)) fail("softmax needs a floating-point input");
  const int64_t r = static_cast<int64_t>(x.rank());
  const bool legacy = c.opset < 13;
  const int64_t axis = norm_axis(c.attr_i("axis", legacy ? 1 : -1), std::max<int64_t>(r, 1));
  Tensor y(x.dt, x.shape);
  int64_t outer = 1, len = 1, inner = 1;
  for (int64_t a = 0; a < r; ++a) {
    if (legacy) (a < axis ? outer : len) *= x.shape[a];
    else (a < axis ? outer : a == axis ? len : inner) *= x.shape[a];
  }
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t j) { return (o * len + j) * inner + i; };
      double mx = -kInf;
      int64_t arg = 0;
      for (int64_t j = 0; j < len; ++j)
        if (x.f[at(j)] > mx) {
          mx = x.f[at(j)];
          arg = j;
        }
      if (M == SM::Hard) {
        for (int64_t j = 0; j < len; ++j) y.f[at(j)] = j == arg ? 1.0 : 0.0;
        continue;
      }
      double sum = 0;
      for (int64_t j = 0; j < len; ++j) sum += std::exp(x.f[at(j)] - mx);
      for (int64_t j = 0; j < len; ++j)
        y.f[at(j)] = M == SM::Soft ? std::exp(x.f[at(j)] - mx) / sum : x.f[at(j)] - mx - std::log(sum);
    }
  normalize(y);
  c.set(0, std::move(y));
}

void k_cumsum(OpCtx& c) {
  const Tensor& x = c.t(0);
  const int64_t axis = norm_axis(c.t(1).geti(0), x.rank());
  const bool excl = c.attr_i("exclusive", 0) != 0, rev = c.attr_i("reverse", 0) != 0;
  Tensor y(x.dt, x.shape);
  int64_t outer = 1, inner = 1;
  for (int64_t a = 0; a < axis; ++a) outer *= x.shape[a];
  for (size_t a = axis + 1; a < x.rank(); ++a) inner *= x.shape[a];
  const int64_t len = x.shape[axis];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double fs = 0;
      int64_t is = 0;
      for (int64_t jj = 0; jj < len; ++jj) {
        const int64_t j = rev ? len - 1 - jj : jj;
        const int64_t k = (o * len + j) * inner + i;
        if (is_float(x.dt)) {
          if (excl) {
            y.f[k] = fs;
            fs += x.f[k];
          } else {
            fs += x.f[k];
            y.f[k] = fs;
          }
        } else {
          if (excl) {
            y.i[k] = is;
            is += x.i[k];
          } else {
            is += x.i[k];
            y.i[k] = is;
          }
        }
      }
    }
  normalize(y);
  c.set(0, std::move(y));
}

void k_topk(OpCtx& c) {
  const Tensor& x = c.t(0);
  const int64_t k = c.has(1) ? c.t(1).geti(0) : c.attr_i("k", 1);
  const int64_t axis = norm_axis(c.attr_i("axis", -1), x.rank());
  if (k < 0 || k > x.shape[axis]) fail("TopK k out of range");
  auto r = topk(x, k, axis, c.attr_i("largest", 1) != 0, false, DT::I64);
  c.set(0, std::move(r[0]));
  c.set(1, std::move(r[1]));
}

}  // namespace

std::vector<Tensor> topk(const Tensor& x, int64_t k, int64_t axis, bool largest, bool by_index, DT index_type) {
  axis = norm_axis(axis, static_cast<int64_t>(x.rank()));
  const int64_t len = x.shape[axis];
  if (k < 0) fail("TopK k is negative");
  k = std::min(k, len);
  Dims od = x.shape;
  od[axis] = k;
  Tensor vals(x.dt, od), idx(index_type, od);
  int64_t outer = 1, inner = 1;
  for (int64_t a = 0; a < axis; ++a) outer *= x.shape[a];
  for (size_t a = axis + 1; a < x.rank(); ++a) inner *= x.shape[a];
  std::vector<int64_t> ord(len);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      std::iota(ord.begin(), ord.end(), 0);
      auto v = [&](int64_t j) { return x.getf((o * len + j) * inner + i); };
      std::stable_sort(ord.begin(), ord.end(),
                       [&](int64_t a, int64_t b) { return largest ? v(a) > v(b) : v(a) < v(b); });
      if (by_index) std::sort(ord.begin(), ord.begin() + k);
      for (int64_t j = 0; j < k; ++j) {
        copy_elem(x, (o * len + ord[j]) * inner + i, vals, (o * k + j) * inner + i);
        idx.i[(o * k + j) * inner + i] = ord[j];
      }
    }
  return {std::move(vals), std::move(idx)};
}

void register_reduce_ops(KernelTable& t) {
  t["ReduceSum"] = k_reduce<Red::Sum>;
  t["ReduceMean"] = k_reduce<Red::Mean>;
  t["ReduceMax"] = k_reduce<Red::Max>;
  t["ReduceMin"] = k_reduce<Red::Min>;
  t["ReduceProd"] = k_reduce<Red::Prod>;
  t["ReduceL1"] = k_reduce<Red::L1>;
  t["ReduceL2"] = k_reduce<Red::L2>;
  t["ReduceLogSum"] = k_reduce<Red::LogSum>;
  t["ReduceLogSumExp"] = k_reduce<Red::LogSumExp>;
  t["ReduceSumSquare"] = k_reduce<Red::SumSquare>;
  t["ArgMax"] = k_arg<true>;
  t["ArgMin"] = k_arg<false>;
  t["Softmax"] = k_softmax<SM::Soft>;
  t["LogSoftmax"] = k_softmax<SM::LogSoft>;
  t["Hardmax"] = k_softmax<SM::Hard>;
  t["CumSum"] = k_cumsum;
  t["TopK"] = k_topk;
}

}  // namespace condlint::exec
