// Root-mean-square normalizations and RoiAlign: ai.onnx RMSNormalization (opset 23), ORT's
// SimplifiedLayerNormalization (registered by ONNX Runtime in the ai.onnx domain) and com.microsoft
// SkipSimplifiedLayerNormalization, and ai.onnx RoiAlign (opsets 10, 16, 22). Values are computed in double and
// rounded to the output's type; each kernel was checked against ONNX Runtime (tools/onnx_oracle/gen_kernel_cases.py,
// corpus-modern/kernels/).
#include <cmath>
#include <limits>

#include "exec/kernel_util.hpp"

namespace condlint::exec {

namespace {

void need_float(const Tensor& x, const char* op, const char* what) {
  if (!is_float(x.dt)) fail(std::string(op) + " needs a floating-point " + what + ", got " + dt_name(x.dt));
}

// The stash type's element type (1 = float, as onnx's default); only floating types are meaningful.
DT stash_dt(const OpCtx& c) {
  const DT d = static_cast<DT>(c.attr_i("stash_type", 1));
  return is_float(d) ? d : DT::F32;
}

// x / sqrt(mean(x^2 over the trailing `inner` elements of each row) + eps) * scale, for `rows` rows of x (already
// summed when there is a skip). `scale` broadcasts against x's shape; inv[r] receives each row's 1/sqrt(...).
struct RmsRows {
  int64_t rows = 0, inner = 0;
};

RmsRows rms_split(const Dims& shape, int64_t axis) {
  RmsRows r{1, 1};
  for (size_t k = 0; k < shape.size(); ++k) (static_cast<int64_t>(k) < axis ? r.rows : r.inner) *= shape[k];
  return r;
}

// The strides of `scale` read at each element of x (scale broadcast to x's shape, unidirectionally).
Dims scale_strides(const Tensor& scale, const Dims& xshape, const char* op) {
  if (scale.rank() > xshape.size()) fail(std::string(op) + ": scale " + scale.describe() + " has more dims than X");
  const size_t off = xshape.size() - scale.rank();
  for (size_t k = 0; k < scale.rank(); ++k)
    if (scale.shape[k] != 1 && scale.shape[k] != xshape[off + k])
      fail(std::string(op) + ": scale " + scale.describe() + " does not broadcast to X's shape " + dims_str(xshape));
  return bstrides(scale.shape, xshape);
}

int64_t offset_of(int64_t flat, const Dims& shape, const Dims& st) {
  int64_t o = 0;
  for (int k = static_cast<int>(shape.size()) - 1; k >= 0; --k) {
    o += (flat % shape[k]) * st[k];
    flat /= shape[k];
  }
  return o;
}

// Normalizes `x` (values as double, shape `shape`) over the axes from `axis`, scaled by `scale`.
Tensor rms_apply(const std::vector<double>& x, const Dims& shape, int64_t axis, double eps, const Tensor& scale,
                 DT out, DT stash, std::vector<double>& inv, const char* op) {
  const RmsRows rr = rms_split(shape, axis);
  const Dims st = scale_strides(scale, shape, op);
  Tensor y(out, shape);
  inv.assign(static_cast<size_t>(rr.rows), 0.0);
  for (int64_t r = 0; r < rr.rows; ++r) {
    double ss = 0;
    for (int64_t i = 0; i < rr.inner; ++i) ss += x[r * rr.inner + i] * x[r * rr.inner + i];
    const double mean = rr.inner ? round_to(stash, ss / static_cast<double>(rr.inner)) : 0.0;
    inv[r] = round_to(stash, 1.0 / std::sqrt(mean + eps));
    for (int64_t i = 0; i < rr.inner; ++i) {
      const int64_t k = r * rr.inner + i;
      y.f[k] = round_to(stash, x[k] * inv[r]) * scale.getf(offset_of(k, shape, st));
    }
  }
  normalize(y);
  return y;
}

// The shape of a per-row statistic: x's shape with the normalized axes set to 1.
Tensor row_stat(const std::vector<double>& v, const Dims& shape, int64_t axis, DT dt) {
  Dims d = shape;
  for (size_t k = static_cast<size_t>(axis); k < d.size(); ++k) d[k] = 1;
  Tensor t(dt, d);
  for (size_t k = 0; k < v.size() && k < t.f.size(); ++k) t.f[k] = v[k];
  normalize(t);
  return t;
}

// RMSNormalization (ai.onnx 23) and SimplifiedLayerNormalization (ORT, ai.onnx domain): X, scale -> Y
// [, inv_std_var for the latter].
void k_rms_norm(OpCtx& c) {
  const Tensor &x = c.t(0), &scale = c.t(1);
  need_float(x, c.node.op_type().c_str(), "X");
  need_float(scale, c.node.op_type().c_str(), "scale");
  const int64_t axis = norm_axis(c.attr_i("axis", -1), static_cast<int64_t>(x.rank()));
  const DT stash = stash_dt(c);
  std::vector<double> inv;
  c.set(0, rms_apply(x.f, x.shape, axis, c.attr_f("epsilon", 1e-5f), scale, scale.dt, stash, inv,
                     c.node.op_type().c_str()));
  if (c.want(1)) c.set(1, row_stat(inv, x.shape, axis, stash));
}

// com.microsoft SkipSimplifiedLayerNormalization: input, skip, gamma [, bias] -> output [, mean (zeros, as ORT
// writes it), inv_std_var, input_skip_bias_sum]; normalizes over the last axis.
void k_skip_rms_norm(OpCtx& c) {
  const char* op = "SkipSimplifiedLayerNormalization";
  const Tensor &x = c.t(0), &skip = c.t(1), &gamma = c.t(2);
  need_float(x, op, "input");
  if (x.rank() < 1) fail(std::string(op) + ": input must have a rank of at least 1");
  const Dims sst = scale_strides(skip, x.shape, op);
  const Tensor* bias = c.has(3) ? &c.t(3) : nullptr;
  const Dims bst = bias ? scale_strides(*bias, x.shape, op) : Dims{};
  std::vector<double> sum(static_cast<size_t>(x.numel()));
  for (int64_t k = 0; k < x.numel(); ++k)
    sum[k] = round_to(x.dt, x.f[k] + skip.getf(offset_of(k, x.shape, sst)) +
                                (bias ? bias->getf(offset_of(k, x.shape, bst)) : 0.0));
  const int64_t axis = static_cast<int64_t>(x.rank()) - 1;
  std::vector<double> inv;
  c.set(0, rms_apply(sum, x.shape, axis, c.attr_f("epsilon", 1e-12f), gamma, x.dt, DT::F32, inv, op));
  if (c.want(1)) c.set(1, row_stat(std::vector<double>(inv.size(), 0.0), x.shape, axis, DT::F32));
  if (c.want(2)) c.set(2, row_stat(inv, x.shape, axis, DT::F32));
  if (c.want(3)) {
    Tensor s(x.dt, x.shape);
    s.f = std::move(sum);
    c.set(3, std::move(s));
  }
}

// RoiAlign's attributes and the geometry of one RoI.
struct RoiParams {
  bool max_mode = false, half_pixel = true;
  int64_t oh = 1, ow = 1, sampling = 0;
  double scale = 1.0;
};

RoiParams roi_params(const OpCtx& c) {
  RoiParams p;
  const std::string mode = c.attr_s("mode", "avg");
  if (mode != "avg" && mode != "max") fail("RoiAlign mode '" + mode + "' is neither avg nor max");
  p.max_mode = mode == "max";
  // Opset 10 has no coordinate_transformation_mode and behaves as output_half_pixel; opset 16 defaults half_pixel.
  const std::string ctm = c.attr_s("coordinate_transformation_mode", c.opset >= 16 ? "half_pixel" : "output_half_pixel");
  if (ctm != "half_pixel" && ctm != "output_half_pixel")
    fail("RoiAlign coordinate_transformation_mode '" + ctm + "' is not supported");
  p.half_pixel = ctm == "half_pixel";
  p.oh = c.attr_i("output_height", 1);
  p.ow = c.attr_i("output_width", 1);
  p.sampling = c.attr_i("sampling_ratio", 0);
  p.scale = c.attr_f("spatial_scale", 1.0f);
  if (p.oh < 1 || p.ow < 1) fail("RoiAlign output_height and output_width must be positive");
  if (p.sampling < 0) fail("RoiAlign sampling_ratio must not be negative");
  return p;
}

// One bilinear sample at (y, x) of an H x W plane: the four corner offsets and weights (all zero outside).
struct Sample {
  int64_t at[4] = {0, 0, 0, 0};
  double w[4] = {0, 0, 0, 0};
};

Sample bilinear(double y, double x, int64_t H, int64_t W) {
  Sample s;
  if (y < -1.0 || y > static_cast<double>(H) || x < -1.0 || x > static_cast<double>(W)) return s;
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  int64_t y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x), y1 = y0 + 1, x1 = x0 + 1;
  if (y0 >= H - 1) y = static_cast<double>(y0 = y1 = H - 1);
  if (x0 >= W - 1) x = static_cast<double>(x0 = x1 = W - 1);
  const double ly = y - static_cast<double>(y0), lx = x - static_cast<double>(x0), hy = 1 - ly, hx = 1 - lx;
  s.at[0] = y0 * W + x0;
  s.at[1] = y0 * W + x1;
  s.at[2] = y1 * W + x0;
  s.at[3] = y1 * W + x1;
  s.w[0] = hy * hx;
  s.w[1] = hy * lx;
  s.w[2] = ly * hx;
  s.w[3] = ly * lx;
  return s;
}

// The samples of every output bin of one RoI, bin-major (bins oh*ow, each grid_h*grid_w samples).
struct RoiGrid {
  std::vector<Sample> samples;
  int64_t per_bin = 1;
};

RoiGrid roi_grid(const RoiParams& p, const double* box, int64_t H, int64_t W) {
  const double off = p.half_pixel ? 0.5 : 0.0;
  const double y0 = box[1] * p.scale - off, x0 = box[0] * p.scale - off;
  double rh = box[3] * p.scale - off - y0, rw = box[2] * p.scale - off - x0;
  if (!p.half_pixel) {  // output_half_pixel keeps a malformed RoI at least one pixel wide
    rh = std::max(rh, 1.0);
    rw = std::max(rw, 1.0);
  }
  const double bh = rh / static_cast<double>(p.oh), bw = rw / static_cast<double>(p.ow);
  const int64_t gh = p.sampling > 0 ? p.sampling : static_cast<int64_t>(std::ceil(rh / static_cast<double>(p.oh)));
  const int64_t gw = p.sampling > 0 ? p.sampling : static_cast<int64_t>(std::ceil(rw / static_cast<double>(p.ow)));
  RoiGrid g;
  g.per_bin = std::max<int64_t>(gh, 0) * std::max<int64_t>(gw, 0);
  g.samples.reserve(static_cast<size_t>(p.oh * p.ow * g.per_bin));
  for (int64_t ph = 0; ph < p.oh; ++ph)
    for (int64_t pw = 0; pw < p.ow; ++pw)
      for (int64_t iy = 0; iy < gh; ++iy)
        for (int64_t ix = 0; ix < gw; ++ix) {
          const double y = y0 + bh * (static_cast<double>(ph) + (static_cast<double>(iy) + 0.5) / static_cast<double>(gh));
          const double x = x0 + bw * (static_cast<double>(pw) + (static_cast<double>(ix) + 0.5) / static_cast<double>(gw));
          g.samples.push_back(bilinear(y, x, H, W));
        }
  return g;
}

// One bin of one channel plane: the mean of its bilinear samples (avg), or the largest weighted corner of any sample
// (max: ONNX Runtime's definition, which onnx's reference follows).
double roi_bin(const RoiGrid& g, int64_t bin, const Tensor& x, int64_t plane, bool max_mode) {
  double acc = max_mode ? -std::numeric_limits<double>::infinity() : 0.0;
  for (int64_t s = 0; s < g.per_bin; ++s) {
    const Sample& sm = g.samples[static_cast<size_t>(bin * g.per_bin + s)];
    double v = max_mode ? -std::numeric_limits<double>::infinity() : 0.0;
    for (int k = 0; k < 4; ++k) {
      const double t = sm.w[k] * x.f[plane + sm.at[k]];
      v = max_mode ? std::max(v, t) : v + t;
    }
    acc = max_mode ? std::max(acc, v) : acc + v;
  }
  if (g.per_bin == 0) return 0.0;
  return max_mode ? acc : acc / static_cast<double>(g.per_bin);
}

void k_roi_align(OpCtx& c) {
  const Tensor &x = c.t(0), &rois = c.t(1), &bi = c.t(2);
  need_float(x, "RoiAlign", "X");
  need_float(rois, "RoiAlign", "rois");
  if (x.rank() != 4) fail("RoiAlign X must be 4-D, got " + x.describe());
  if (rois.rank() != 2 || rois.shape[1] != 4) fail("RoiAlign rois must be [num_rois, 4], got " + rois.describe());
  const int64_t R = rois.shape[0], N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  if (bi.numel() != R) fail("RoiAlign batch_indices " + bi.describe() + " does not hold one index per RoI");
  const RoiParams p = roi_params(c);
  Tensor y(x.dt, {R, C, p.oh, p.ow});
  const int64_t bins = p.oh * p.ow;
  for (int64_t r = 0; r < R; ++r) {
    const int64_t b = bi.geti(r);
    if (b < 0 || b >= N) fail("RoiAlign batch index " + std::to_string(b) + " out of range for batch " + std::to_string(N));
    const double box[4] = {rois.f[r * 4], rois.f[r * 4 + 1], rois.f[r * 4 + 2], rois.f[r * 4 + 3]};
    const RoiGrid g = roi_grid(p, box, H, W);
    for (int64_t ch = 0; ch < C; ++ch)
      for (int64_t bin = 0; bin < bins; ++bin)
        y.f[((r * C + ch) * bins) + bin] = roi_bin(g, bin, x, (b * C + ch) * H * W, p.max_mode);
  }
  normalize(y);
  c.set(0, std::move(y));
}

}  // namespace

void register_norm_ops(KernelTable& t) {
  t["RMSNormalization"] = k_rms_norm;
  t["SimplifiedLayerNormalization"] = k_rms_norm;  // ORT registers it in the ai.onnx domain
  t["com.microsoft.SkipSimplifiedLayerNormalization"] = k_skip_rms_norm;
  t["RoiAlign"] = k_roi_align;
}

}  // namespace condlint::exec
