#include "exec/ir_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "exec/kernel_util.hpp"

namespace condlint::exec::ir {

namespace {

template <typename F>
Tensor map_float(const Tensor& x, F&& f, const char* op) {
  if (!is_float(x.dt)) fail(std::string(op) + " needs a floating-point input, got " + x.describe());
  Tensor y(x.dt, x.shape);
  for (int64_t k = 0; k < x.numel(); ++k) y.f[k] = round_to(x.dt, f(x.f[k]));
  return y;
}

void put_value(Tensor& y, int64_t k, double v) {
  if (is_float(y.dt)) y.f[k] = round_to(y.dt, v);
  else y.i[k] = double_to_int(y.dt, v);
}

}  // namespace

Tensor gelu(const Tensor& x, bool tanh_form) {
  const double c = std::sqrt(2.0 / M_PI);
  return map_float(
      x,
      [&](double v) {
        if (tanh_form) return 0.5 * v * (1.0 + std::tanh(c * (v + 0.044715 * v * v * v)));
        return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
      },
      "Gelu");
}

Tensor swish(const Tensor& x, double beta) {
  return map_float(x, [&](double v) { return v / (1.0 + std::exp(-beta * v)); }, "Swish");
}

Tensor clamp(const Tensor& x, double lo, double hi) {
  if (is_float(x.dt)) return map_float(x, [&](double v) { return std::min(std::max(v, lo), hi); }, "Clamp");
  if (is_string(x.dt)) fail("Clamp of strings");
  const double l = std::ceil(lo), h = std::floor(hi);
  Tensor y(x.dt, x.shape);
  for (int64_t k = 0; k < x.numel(); ++k) {
    const double v = static_cast<double>(x.i[k]);
    y.i[k] = v < l ? double_to_int(x.dt, l) : v > h ? double_to_int(x.dt, h) : x.i[k];
  }
  return y;
}

namespace {

// The positions of `x` split into reduced (over `axes`) and kept parts: group[k] is the kept index of element k.
std::vector<int64_t> reduce_groups(const Dims& shape, const std::vector<bool>& reduced, int64_t& n_groups) {
  const Dims st = strides_of(shape);
  Dims kept;
  for (size_t a = 0; a < shape.size(); ++a) kept.push_back(reduced[a] ? 1 : shape[a]);
  const Dims kst = strides_of(kept);
  n_groups = checked_numel(kept);
  std::vector<int64_t> g(checked_numel(shape));
  for (int64_t k = 0; k < static_cast<int64_t>(g.size()); ++k) {
    int64_t o = 0;
    for (size_t a = 0; a < shape.size(); ++a)
      if (!reduced[a]) o += (k / st[a]) % shape[a] * kst[a];
    g[k] = o;
  }
  return g;
}

}  // namespace

Tensor mvn(const Tensor& x, std::vector<int64_t> axes, bool normalize_variance, double eps, bool eps_inside) {
  if (!is_float(x.dt)) fail("MVN needs a floating-point input, got " + x.describe());
  const int64_t r = static_cast<int64_t>(x.rank());
  std::vector<bool> reduced(r, false);
  for (int64_t& a : axes) reduced[norm_axis(a, r, "MVN axis")] = true;
  int64_t ng = 0;
  const auto grp = reduce_groups(x.shape, reduced, ng);
  std::vector<double> sum(ng, 0), sq(ng, 0), cnt(ng, 0);
  for (int64_t k = 0; k < x.numel(); ++k) {
    sum[grp[k]] += x.f[k];
    cnt[grp[k]] += 1;
  }
  for (int64_t g = 0; g < ng; ++g) sum[g] = cnt[g] ? sum[g] / cnt[g] : 0;
  for (int64_t k = 0; k < x.numel(); ++k) sq[grp[k]] += (x.f[k] - sum[grp[k]]) * (x.f[k] - sum[grp[k]]);
  Tensor y(x.dt, x.shape);
  for (int64_t k = 0; k < x.numel(); ++k) {
    double v = x.f[k] - sum[grp[k]];
    if (normalize_variance) {
      const double var = cnt[grp[k]] ? sq[grp[k]] / cnt[grp[k]] : 0;
      v /= eps_inside ? std::sqrt(var + eps) : std::sqrt(var) + eps;
    }
    y.f[k] = round_to(x.dt, v);
  }
  return y;
}

namespace {

// The additive mask value at (batch b, query i, key j) of a mask broadcast to [batch..., L, S].
double mask_at(const Tensor* mask, const Dims& mstr, const Dims& batch, int64_t b, int64_t i, int64_t j) {
  if (!mask) return 0;
  const Dims bst = strides_of(batch);
  const size_t nb = batch.size();
  int64_t o = 0;
  for (size_t a = 0; a < nb; ++a) o += (b / bst[a]) % batch[a] * mstr[a];
  o += i * mstr[nb] + j * mstr[nb + 1];
  if (mask->dt == DT::Bool) return mask->i[o] ? 0.0 : -std::numeric_limits<double>::infinity();
  return mask->getf(o);
}

}  // namespace

Tensor sdpa(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask, const Tensor* scale, bool causal) {
  if (q.rank() < 2 || k.rank() != q.rank() || v.rank() != q.rank()) fail("ScaledDotProductAttention ranks differ");
  const size_t nb = q.rank() - 2;
  const Dims batch(q.shape.begin(), q.shape.begin() + nb);
  if (Dims(k.shape.begin(), k.shape.begin() + nb) != batch || Dims(v.shape.begin(), v.shape.begin() + nb) != batch)
    throw ExecError(ErrKind::Unsupported, "unsupported op ScaledDotProductAttention with broadcast batch dims");
  const int64_t L = q.shape[nb], E = q.shape[nb + 1], S = k.shape[nb], Ev = v.shape[nb + 1];
  if (k.shape[nb + 1] != E || v.shape[nb] != S) fail("ScaledDotProductAttention Q/K/V shapes do not match");
  const double sc = scale ? scale->getf(0) : 1.0 / std::sqrt(static_cast<double>(E));
  Dims full = batch;
  full.push_back(L);
  full.push_back(S);
  const Tensor* m = causal ? nullptr : mask;
  Dims mstr;
  if (m) {
    if (m->rank() > full.size()) fail("ScaledDotProductAttention mask has a higher rank than the scores");
    if (broadcast_shapes({&full, &m->shape}) != full)
      fail("ScaledDotProductAttention mask " + dims_str(m->shape) + " does not broadcast to the scores " +
           dims_str(full));
    mstr = bstrides(m->shape, full);
  }
  const int64_t B = checked_numel(batch);
  Dims od = batch;
  od.push_back(L);
  od.push_back(Ev);
  Tensor y(q.dt, od);
  std::vector<double> w(S);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < L; ++i) {
      double mx = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < S; ++j) {
        double s = 0;
        for (int64_t e = 0; e < E; ++e) s += q.getf((b * L + i) * E + e) * k.getf((b * S + j) * E + e);
        w[j] = s * sc + mask_at(m, mstr, batch, b, i, j);
        if (causal && j > i) w[j] = -std::numeric_limits<double>::infinity();
        mx = std::max(mx, w[j]);
      }
      double z = 0;
      for (int64_t j = 0; j < S; ++j) z += (w[j] = std::exp(w[j] - mx));
      for (int64_t e = 0; e < Ev; ++e) {
        double s = 0;
        for (int64_t j = 0; j < S; ++j) s += w[j] / z * v.getf((b * S + j) * Ev + e);
        put_value(y, (b * L + i) * Ev + e, s);
      }
    }
  return y;
}

namespace {

// One bilinear sample of channel plane `plane` (h x w) at (y, x): weighted corner values, or none out of bounds.
bool bilinear_corners(const Tensor& x, int64_t plane, int64_t h, int64_t w, double y, double xx,
                      std::array<double, 4>& vals) {
  // (NaN coordinates are outside too.)
  if (!(y >= -1.0 && y <= static_cast<double>(h) && xx >= -1.0 && xx <= static_cast<double>(w))) return false;
  y = std::max(y, 0.0);
  xx = std::max(xx, 0.0);
  int64_t y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(xx), y1, x1;
  if (y0 >= h - 1) y = static_cast<double>(y0 = y1 = h - 1);
  else y1 = y0 + 1;
  if (x0 >= w - 1) xx = static_cast<double>(x0 = x1 = w - 1);
  else x1 = x0 + 1;
  const double ly = y - static_cast<double>(y0), lx = xx - static_cast<double>(x0), hy = 1 - ly, hx = 1 - lx;
  auto at = [&](int64_t a, int64_t b) { return x.getf(plane + a * w + b); };
  vals = {hy * hx * at(y0, x0), hy * lx * at(y0, x1), ly * hx * at(y1, x0), ly * lx * at(y1, x1)};
  return true;
}

}  // namespace

Tensor roi_align(const Tensor& x, const Tensor& rois, const Tensor& batch_indices, const RoiAlignAttrs& a) {
  if (x.rank() != 4 || rois.rank() != 2 || rois.shape[1] != 4) fail("ROIAlign needs a 4-D input and [n,4] rois");
  const int64_t n = rois.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  if (batch_indices.numel() != n) fail("ROIAlign batch_indices do not match the rois");
  const bool asym = a.aligned_mode == "asymmetric", hp = a.aligned_mode == "half_pixel";
  if (!asym && !hp && a.aligned_mode != "half_pixel_for_nn")
    throw ExecError(ErrKind::Unsupported, "unsupported op ROIAlign with aligned_mode=" + a.aligned_mode);
  const bool avg = a.mode == "avg";
  if (!avg && a.mode != "max") throw ExecError(ErrKind::Unsupported, "unsupported op ROIAlign with mode=" + a.mode);
  const double off_src = hp ? 0.5 : 0.0, off_dst = asym ? 0.0 : -0.5;
  Tensor y(x.dt, {n, C, a.pooled_h, a.pooled_w});
  for (int64_t r = 0; r < n; ++r) {
    const int64_t b = batch_indices.geti(r);
    if (b < 0 || b >= x.shape[0]) fail("ROIAlign batch index " + std::to_string(b) + " out of range");
    auto coord = [&](int64_t j) { return (rois.getf(r * 4 + j) + off_src) * a.spatial_scale + off_dst; };
    const double x1 = coord(0), y1 = coord(1);
    double rw = coord(2) - x1, rh = coord(3) - y1;
    if (asym) rw = std::max(rw, 1.0), rh = std::max(rh, 1.0);
    const double bw = rw / static_cast<double>(a.pooled_w), bh = rh / static_cast<double>(a.pooled_h);
    if (!(bw <= 1e6 && bh <= 1e6))  // the adaptive sample count is ceil(bin size): bounded before the cast
      fail("ROIAlign region " + std::to_string(r) + " has a bin of " + std::to_string(bw) + " x " + std::to_string(bh));
    const int64_t sx = a.sampling_ratio > 0 ? a.sampling_ratio : static_cast<int64_t>(std::ceil(bw));
    const int64_t sy = a.sampling_ratio > 0 ? a.sampling_ratio : static_cast<int64_t>(std::ceil(bh));
    for (int64_t c = 0; c < C; ++c) {
      const int64_t plane = (b * C + c) * H * W;
      for (int64_t py = 0; py < a.pooled_h; ++py)
        for (int64_t px = 0; px < a.pooled_w; ++px) {
          double acc = 0.0;  // max mode too: OpenVINO starts the maximum at 0
          for (int64_t iy = 0; iy < sy; ++iy)
            for (int64_t ix = 0; ix < sx; ++ix) {
              const double yy = y1 + py * bh + bh / sy * (iy + 0.5), xx = x1 + px * bw + bw / sx * (ix + 0.5);
              std::array<double, 4> v{0, 0, 0, 0};
              bilinear_corners(x, plane, H, W, yy, xx, v);
              if (avg) acc += v[0] + v[1] + v[2] + v[3];
              else acc = std::max(acc, v[0] + v[1] + v[2] + v[3]);
            }
          if (avg && sx * sy > 0) acc /= static_cast<double>(sx * sy);
          put_value(y, ((r * C + c) * a.pooled_h + py) * a.pooled_w + px, acc);
        }
    }
  }
  return y;
}

namespace {

// The source index along an axis of size d for output position p (p - pad_begin), or -1 for the constant.
int64_t pad_source(int64_t p, int64_t d, const std::string& mode) {
  if (p >= 0 && p < d) return p;
  if (mode == "constant" || d == 0) return -1;
  if (mode == "edge") return p < 0 ? 0 : d - 1;
  if (mode == "reflect") {
    if (d == 1) return 0;
    const int64_t period = 2 * (d - 1);
    p = ((p % period) + period) % period;
    return p >= d ? period - p : p;
  }
  if (mode == "symmetric") {
    const int64_t period = 2 * d;
    p = ((p % period) + period) % period;
    return p >= d ? period - 1 - p : p;
  }
  throw ExecError(ErrKind::Unsupported, "unsupported op Pad with pad_mode=" + mode);
}

}  // namespace

Tensor pad(const Tensor& x, const std::vector<int64_t>& lo, const std::vector<int64_t>& hi, const std::string& mode,
           double value) {
  const size_t r = x.rank();
  if (lo.size() != r || hi.size() != r)
    fail("Pad pads_begin/pads_end have " + std::to_string(lo.size()) + "/" + std::to_string(hi.size()) +
         " values for rank " + std::to_string(r));
  Dims od(r);
  constexpr int64_t kMaxPad = int64_t{1} << 40;  // no overflow in the sum below
  for (size_t a = 0; a < r; ++a) {
    if (std::abs(lo[a]) > kMaxPad || std::abs(hi[a]) > kMaxPad) fail("Pad pads beyond 2^40");
    if ((od[a] = x.shape[a] + lo[a] + hi[a]) < 0) fail("Pad makes a negative dimension");
  }
  Tensor y(x.dt, od);
  const Dims xs = strides_of(x.shape), ys = strides_of(od);
  for (int64_t k = 0; k < y.numel(); ++k) {
    int64_t src = 0;
    for (size_t a = 0; a < r && src >= 0; ++a) {
      const int64_t p = pad_source((k / ys[a]) % od[a] - lo[a], x.shape[a], mode);
      src = p < 0 ? -1 : src + p * xs[a];
    }
    if (src >= 0) copy_elem(x, src, y, k);
    else put_value(y, k, value);
  }
  return y;
}

namespace {

struct Box {
  double y1, x1, y2, x2;
};

Box box_at(const Tensor& boxes, int64_t b, int64_t i, bool center) {
  const int64_t o = (b * boxes.shape[1] + i) * 4;
  const double a = boxes.getf(o), c = boxes.getf(o + 1), d = boxes.getf(o + 2), e = boxes.getf(o + 3);
  if (center) return {c - e / 2, a - d / 2, c + e / 2, a + d / 2};  // x_center, y_center, width, height
  return {std::min(a, d), std::min(c, e), std::max(a, d), std::max(c, e)};
}

double iou(const Box& p, const Box& q) {
  const double ap = (p.y2 - p.y1) * (p.x2 - p.x1), aq = (q.y2 - q.y1) * (q.x2 - q.x1);
  if (ap <= 0 || aq <= 0) return 0;
  const double ih = std::max(0.0, std::min(p.y2, q.y2) - std::max(p.y1, q.y1));
  const double iw = std::max(0.0, std::min(p.x2, q.x2) - std::max(p.x1, q.x1));
  const double inter = ih * iw;
  return inter / (ap + aq - inter);
}

struct Selected {
  int64_t batch, cls, box;
  double score;
};

// Greedy hard NMS of one batch and class, in selection order (score descending).
void select_class(const Tensor& boxes, const Tensor& scores, const NmsAttrs& a, int64_t b, int64_t cl,
                  std::vector<Selected>& out) {
  const int64_t n = boxes.shape[1];
  std::vector<int64_t> cand;
  auto score = [&](int64_t i) { return scores.getf((b * scores.shape[1] + cl) * n + i); };
  for (int64_t i = 0; i < n; ++i)
    if (score(i) > a.score) cand.push_back(i);
  std::stable_sort(cand.begin(), cand.end(), [&](int64_t p, int64_t q) { return score(p) > score(q); });
  std::vector<Box> kept;
  for (int64_t i : cand) {
    if (static_cast<int64_t>(kept.size()) >= a.max_per_class) break;
    const Box bx = box_at(boxes, b, i, a.center);
    bool keep = true;
    for (const Box& k : kept) keep = keep && iou(bx, k) <= a.iou;
    if (!keep) continue;
    kept.push_back(bx);
    out.push_back({b, cl, i, score(i)});
  }
}

}  // namespace

std::vector<Tensor> nms(const Tensor& boxes, const Tensor& scores, const NmsAttrs& a) {
  if (boxes.rank() != 3 || boxes.shape[2] != 4 || scores.rank() != 3 || scores.shape[0] != boxes.shape[0] ||
      scores.shape[2] != boxes.shape[1])
    fail("NonMaxSuppression needs boxes [B,N,4] and scores [B,C,N], got " + boxes.describe() + " and " +
         scores.describe());
  if (!is_float(scores.dt)) fail("NonMaxSuppression scores are " + scores.describe());
  if (a.sigma != 0) throw ExecError(ErrKind::Unsupported, "unsupported op NonMaxSuppression with soft_nms_sigma != 0");
  std::vector<Selected> sel;
  for (int64_t b = 0; b < boxes.shape[0]; ++b)
    for (int64_t cl = 0; cl < scores.shape[1]; ++cl) select_class(boxes, scores, a, b, cl, sel);
  if (a.sort_descending)
    std::stable_sort(sel.begin(), sel.end(), [](const Selected& p, const Selected& q) { return p.score > q.score; });
  const int64_t n = static_cast<int64_t>(sel.size());
  Tensor idx(a.index_type, {n, 3}), sc(scores.dt, {n, 3}), valid(a.index_type, {1});
  for (int64_t k = 0; k < n; ++k) {
    idx.i[3 * k] = sel[k].batch;
    idx.i[3 * k + 1] = sel[k].cls;
    idx.i[3 * k + 2] = sel[k].box;
    sc.f[3 * k] = static_cast<double>(sel[k].batch);
    sc.f[3 * k + 1] = static_cast<double>(sel[k].cls);
    sc.f[3 * k + 2] = round_to(sc.dt, sel[k].score);
  }
  valid.i[0] = n;
  return {std::move(idx), std::move(sc), std::move(valid)};
}

Tensor round_away(const Tensor& x) {
  if (!is_float(x.dt)) return x;
  return map_float(x, [](double v) { return std::round(v); }, "Round");
}

Tensor reorder_blocks(const Tensor& w, const std::vector<int64_t>& order) {
  if (w.rank() < 2) fail("gate weights need rank >= 2");
  const int64_t nb = static_cast<int64_t>(order.size()), rows = w.shape[1];
  if (rows % nb) fail("gate weights' axis 1 (" + std::to_string(rows) + ") is not a multiple of the gate count");
  const int64_t blk = rows / nb;
  int64_t inner = 1;
  for (size_t a = 2; a < w.rank(); ++a) inner *= w.shape[a];
  Tensor y(w.dt, w.shape);
  for (int64_t d = 0; d < w.shape[0]; ++d)
    for (int64_t j = 0; j < nb; ++j)
      for (int64_t e = 0; e < blk * inner; ++e)
        copy_elem(w, (d * rows + order[j] * blk) * inner + e, y, (d * rows + j * blk) * inner + e);
  return y;
}

}  // namespace condlint::exec::ir
