// Resize (opsets 10-17): nearest / linear / cubic, separable per axis, all coordinate transformation modes.
#include <cmath>

#include "exec/kernel_util.hpp"

namespace condlint::exec {
namespace {

struct Taps {
  std::vector<int64_t> idx;
  std::vector<double> w;
  bool outside = false;  // tf_crop_and_resize coordinate outside the input: extrapolation_value
};

// `out` is the resized length as a real number (input length x scale), as ONNX's reference uses it.
double original_coord(const std::string& mode, double x, double scale, int64_t in, double out, double roi_lo,
                      double roi_hi) {
  if (mode == "half_pixel") return (x + 0.5) / scale - 0.5;
  if (mode == "pytorch_half_pixel") return out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  if (mode == "align_corners") return out == 1 ? 0.0 : x * static_cast<double>(in - 1) / (out - 1);
  if (mode == "asymmetric") return x / scale;
  if (mode == "tf_crop_and_resize")
    return out > 1 ? roi_lo * (in - 1) + x * (roi_hi - roi_lo) * (in - 1) / (out - 1)
                   : 0.5 * (roi_lo + roi_hi) * (in - 1);
  if (mode == "tf_half_pixel_for_nn") return (x + 0.5) / scale;
  throw ExecError(ErrKind::Unsupported, "Resize coordinate_transformation_mode '" + mode + "'");
}

Taps taps_for(const std::string& mode, const std::string& coord, const std::string& nearest, double cubic_a,
              bool exclude_outside, int64_t x, double scale, int64_t in, [[maybe_unused]] int64_t out, double roi_lo,
              double roi_hi) {
  Taps t;
  const double xo =
      original_coord(coord, static_cast<double>(x), scale, in, static_cast<double>(in) * scale, roi_lo, roi_hi);
  if (coord == "tf_crop_and_resize" && (xo < 0 || xo > static_cast<double>(in - 1))) {
    t.outside = true;
    return t;
  }
  auto clamp = [&](int64_t i) { return std::clamp<int64_t>(i, 0, in - 1); };
  if (mode == "nearest") {
    double r;
    const double fl = std::floor(xo), frac = xo - fl;
    if (nearest == "floor") r = fl;
    else if (nearest == "ceil") r = std::ceil(xo);
    else if (nearest == "round_prefer_ceil") r = frac >= 0.5 ? fl + 1 : fl;
    else r = frac > 0.5 ? fl + 1 : fl;  // round_prefer_floor
    t.idx.push_back(clamp(static_cast<int64_t>(r)));
    t.w.push_back(1.0);
    return t;
  }
  const int64_t x0 = static_cast<int64_t>(std::floor(xo));
  double r = xo - static_cast<double>(x0);
  if (mode == "linear") {
    t.idx = {clamp(x0), clamp(x0 + 1)};
    t.w = {1 - r, r};
    if (exclude_outside) {
      double s = 0;
      for (int j = 0; j < 2; ++j) {
        const int64_t i = x0 + j;
        if (i < 0 || i >= in) t.w[j] = 0;
        s += t.w[j];
      }
      if (s != 0)
        for (double& w : t.w) w /= s;
    }
    return t;
  }
  // cubic
  int64_t base = x0 - 1;
  if (r == 0) {
    r = 1;
    base = x0 - 2;
  }
  const double A = cubic_a;
  auto far = [&](double d) { return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A; };  // 1 < d < 2
  auto near = [&](double d) { return ((A + 2) * d - (A + 3)) * d * d + 1; };       // d <= 1
  t.w = {far(r + 1), near(r), near(1 - r), far(2 - r)};
  double s = 0;
  for (int j = 0; j < 4; ++j) {
    const int64_t i = base + j;
    if (exclude_outside && (i < 0 || i >= in)) t.w[j] = 0;
    s += t.w[j];
    t.idx.push_back(clamp(i));
  }
  if (exclude_outside && s != 0)
    for (double& w : t.w) w /= s;
  return t;
}

void k_resize(OpCtx& c) {
  const Tensor& x = c.t(0);
  const int64_t r = static_cast<int64_t>(x.rank());
  const std::string mode = c.attr_s("mode", "nearest");
  const std::string coord = c.opset < 11 ? "asymmetric" : c.attr_s("coordinate_transformation_mode", "half_pixel");
  const std::string nearest = c.opset < 11 ? "floor" : c.attr_s("nearest_mode", "round_prefer_floor");
  const double cubic_a = c.attr_f("cubic_coeff_a", -0.75f);
  const bool exclude = c.attr_i("exclude_outside", 0) != 0;
  const double extrap = c.attr_f("extrapolation_value", 0.0f);
  if (c.attr_i("antialias", 0))
    throw ExecError(ErrKind::Unsupported, "unsupported op Resize with antialias at " + c.path);
  if (c.has_attr("axes") || c.has_attr("keep_aspect_ratio_policy"))
    throw ExecError(ErrKind::Unsupported, "unsupported op Resize with axes / keep_aspect_ratio_policy at " + c.path);
  if (mode != "nearest" && mode != "linear" && mode != "cubic") fail("Resize mode '" + mode + "'");
  std::vector<double> scales, roi;
  std::vector<int64_t> sizes;
  const size_t scales_at = c.opset < 11 ? 1 : 2;
  if (c.has(scales_at) && c.t(scales_at).numel() > 0) {
    const Tensor& s = c.t(scales_at);
    for (int64_t k = 0; k < s.numel(); ++k) scales.push_back(s.getf(k));
  }
  if (c.opset >= 11 && c.has(3) && c.t(3).numel() > 0) sizes = to_i64s(c.t(3));
  if (c.opset >= 11 && c.has(1) && c.t(1).numel() > 0)
    for (int64_t k = 0; k < c.t(1).numel(); ++k) roi.push_back(c.t(1).getf(k));
  Dims od(r);
  if (!sizes.empty()) {
    if (static_cast<int64_t>(sizes.size()) != r) fail("Resize sizes has the wrong length");
    scales.assign(r, 1.0);
    for (int64_t a = 0; a < r; ++a) {
      od[a] = sizes[a];
      scales[a] = x.shape[a] ? static_cast<double>(sizes[a]) / static_cast<double>(x.shape[a]) : 1.0;
    }
  } else {
    if (static_cast<int64_t>(scales.size()) != r) fail("Resize needs scales or sizes of the input's rank");
    for (int64_t a = 0; a < r; ++a) {
      if (!(scales[a] > 0)) fail("Resize scale must be positive");
      od[a] = static_cast<int64_t>(std::floor(static_cast<double>(x.shape[a]) * static_cast<float>(scales[a])));
    }
  }
  if (coord == "tf_crop_and_resize" && static_cast<int64_t>(roi.size()) != 2 * r)
    fail("Resize tf_crop_and_resize needs roi of 2*rank values");
  std::vector<std::vector<Taps>> taps(r);
  for (int64_t a = 0; a < r; ++a) {
    for (int64_t o = 0; o < od[a]; ++o)
      taps[a].push_back(taps_for(mode, coord, nearest, cubic_a, exclude, o, scales[a], x.shape[a], od[a],
                                 roi.empty() ? 0.0 : roi[a], roi.empty() ? 1.0 : roi[a + r]));
  }
  Tensor y(x.dt, od);
  const Dims xs = strides_of(x.shape);
  std::vector<int64_t> ctr(r, 0);
  for (int64_t k = 0; k < y.numel(); ++k) {
    bool outside = false;
    for (int64_t a = 0; a < r; ++a) outside = outside || taps[a][ctr[a]].outside;
    double v = 0;
    if (outside) v = extrap;
    else {
      // sum over the tensor product of the per-axis taps
      std::vector<size_t> j(r, 0);
      while (true) {
        double w = 1;
        int64_t src = 0;
        for (int64_t a = 0; a < r; ++a) {
          const Taps& t = taps[a][ctr[a]];
          w *= t.w[j[a]];
          src += t.idx[j[a]] * xs[a];
        }
        if (w != 0) v += w * x.getf(src);
        int64_t a = r - 1;
        for (; a >= 0; --a) {
          if (++j[a] < taps[a][ctr[a]].idx.size()) break;
          j[a] = 0;
        }
        if (a < 0) break;
      }
    }
    if (is_float(y.dt)) y.f[k] = v;
    else y.i[k] = double_to_int(y.dt, std::nearbyint(v));
    for (int64_t a = r - 1; a >= 0; --a) {
      if (++ctr[a] < od[a]) break;
      ctr[a] = 0;
    }
  }
  normalize(y);
  c.set(0, std::move(y));
}

void k_upsample(OpCtx& c) {
  const Tensor& x = c.t(0);
  std::vector<double> scales;
  if (c.has(1))
    for (int64_t k = 0; k < c.t(1).numel(); ++k) scales.push_back(c.t(1).getf(k));
  else
    for (float f : c.attr_floats("scales")) scales.push_back(f);
  if (scales.size() != x.rank()) fail("Upsample scales has the wrong length");
  const std::string mode = c.attr_s("mode", "nearest");
  const int64_t r = static_cast<int64_t>(x.rank());
  std::vector<std::vector<Taps>> taps(r);
  Dims od(r);
  for (int64_t a = 0; a < r; ++a) {
    od[a] = static_cast<int64_t>(std::floor(x.shape[a] * scales[a]));
    for (int64_t o = 0; o < od[a]; ++o)
      taps[a].push_back(taps_for(mode == "nearest" ? "nearest" : "linear", "asymmetric", "floor", -0.75, false, o,
                                 scales[a], x.shape[a], od[a], 0, 1));
  }
  Tensor y(x.dt, od);
  const Dims xs = strides_of(x.shape);
  std::vector<int64_t> ctr(r, 0);
  for (int64_t k = 0; k < y.numel(); ++k) {
    double v = 0;
    std::vector<size_t> j(r, 0);
    while (true) {
      double w = 1;
      int64_t src = 0;
      for (int64_t a = 0; a < r; ++a) {
        w *= taps[a][ctr[a]].w[j[a]];
        src += taps[a][ctr[a]].idx[j[a]] * xs[a];
      }
      if (w != 0) v += w * x.getf(src);
      int64_t a = r - 1;
      for (; a >= 0; --a) {
        if (++j[a] < taps[a][ctr[a]].idx.size()) break;
        j[a] = 0;
      }
      if (a < 0) break;
    }
    if (is_float(y.dt)) y.f[k] = v;
    else y.i[k] = double_to_int(y.dt, v);
    for (int64_t a = r - 1; a >= 0; --a) {
      if (++ctr[a] < od[a]) break;
      ctr[a] = 0;
    }
  }
  normalize(y);
  c.set(0, std::move(y));
}

}  // namespace

void register_resize_ops(KernelTable& t) {
  t["Resize"] = k_resize;
  t["Upsample"] = k_upsample;
}

}  // namespace condlint::exec
