// Matrix and neural-network kernels: MatMul, Gemm, Conv, pooling, normalization, quantization.
#include <cmath>
#include <limits>

#include "exec/kernel_util.hpp"

namespace condlint::exec {

namespace {

// C[M,N] += A[M,K] x B[K,N] for the k in [k0, k1) and the j in [j0, j1), rows [i0, i1): one by one, in k order.
template <typename T>
void matmul_plain(const T* A, const T* B, T* C, int64_t K, int64_t N, int64_t i0, int64_t i1, int64_t k0,
                  int64_t k1, int64_t j0, int64_t j1) {
  for (int64_t i = i0; i < i1; ++i) {
    T* __restrict c = C + i * N;
    const T* a = A + i * K;
    for (int64_t k = k0; k < k1; ++k) {
      const T av = a[k];
      const T* __restrict bk = B + k * N;
      for (int64_t j = j0; j < j1; ++j) c[j] += av * bk[j];
    }
  }
}

// C[M,N] = A[M,K] x B[K,N], all row-major and C zero on entry. Each element is summed over k in ascending order
// from 0, as the plain triple loop sums it (c = c + a*b, one product at a time), so the result is the same bit
// for bit. The loops run over tiles of B (kKTile x kNTile, which stay in cache) and, inside one, over blocks of
// kRows x kCols elements of C kept in registers while k runs; the edges go through matmul_plain.
template <typename T>
void matmul_block(const T* A, const T* B, T* C, int64_t M, int64_t K, int64_t N) {
  constexpr int64_t kKTile = 256, kNTile = 256, kRows = 4, kCols = 8;
  for (int64_t j0 = 0; j0 < N; j0 += kNTile) {
    const int64_t j1 = std::min(N, j0 + kNTile);
    const int64_t jv = j0 + (j1 - j0) / kCols * kCols;
    for (int64_t k0 = 0; k0 < K; k0 += kKTile) {
      const int64_t k1 = std::min(K, k0 + kKTile);
      int64_t i = 0;
      for (; i + kRows <= M; i += kRows) {
        for (int64_t j = j0; j < jv; j += kCols) {
          T acc[kRows][kCols];
          for (int64_t r = 0; r < kRows; ++r)
            for (int64_t q = 0; q < kCols; ++q) acc[r][q] = C[(i + r) * N + j + q];
          for (int64_t k = k0; k < k1; ++k) {
            const T* bk = B + k * N + j;
            for (int64_t r = 0; r < kRows; ++r) {
              const T av = A[(i + r) * K + k];
              for (int64_t q = 0; q < kCols; ++q) acc[r][q] += av * bk[q];
            }
          }
          for (int64_t r = 0; r < kRows; ++r)
            for (int64_t q = 0; q < kCols; ++q) C[(i + r) * N + j + q] = acc[r][q];
        }
        matmul_plain(A, B, C, K, N, i, i + kRows, k0, k1, jv, j1);
      }
      matmul_plain(A, B, C, K, N, i, M, k0, k1, j0, j1);
    }
  }
}

}  // namespace

Tensor matmul(const Tensor& a0, const Tensor& b0, DT out) {
  if (a0.rank() == 0 || b0.rank() == 0) fail("MatMul operands must not be scalars");
  if (is_float(a0.dt) != is_float(b0.dt) || is_string(a0.dt) || is_string(b0.dt))
    fail(std::string("MatMul operands have element types ") + dt_name(a0.dt) + " and " + dt_name(b0.dt));
  // a vector operand as a matrix; a matrix operand read where it is, not copied
  Tensor a1 = a0.rank() == 1 ? reshape_copy(a0, {1, a0.shape[0]}) : Tensor();
  Tensor b1 = b0.rank() == 1 ? reshape_copy(b0, {b0.shape[0], 1}) : Tensor();
  const Tensor& a = a0.rank() == 1 ? a1 : a0;
  const Tensor& b = b0.rank() == 1 ? b1 : b0;
  const int64_t M = a.shape[a.rank() - 2], K = a.shape[a.rank() - 1];
  const int64_t K2 = b.shape[b.rank() - 2], N = b.shape[b.rank() - 1];
  if (K != K2) fail("MatMul inner dimensions differ: " + a0.describe() + " x " + b0.describe());
  Dims ab(a.shape.begin(), a.shape.end() - 2), bb(b.shape.begin(), b.shape.end() - 2);
  Dims batch = broadcast_shapes({&ab, &bb});
  Dims od = batch;
  od.push_back(M);
  od.push_back(N);
  Tensor r(out, od);
  const Dims sa = bstrides(ab, batch), sb = bstrides(bb, batch);
  const bool fl = is_float(out);
  const bool fast = fl ? is_float(a.dt) && is_float(b.dt) : is_int_storage(a.dt) && is_int_storage(b.dt);
  for (const Tensor* t : {&a, &b}) {  // what getf's bounds check would have said, before the unchecked loops
    const auto held = static_cast<int64_t>(fl ? t->f.size() : t->i.size());
    if (fast && held < t->numel()) t->out_of_range(held);
  }
  for_broadcast(batch, std::array<Dims, 2>{sa, sb}, [&](int64_t bi, const std::array<int64_t, 2>& ix) {
    const int64_t ao = ix[0] * M * K, bo = ix[1] * K * N, oo = bi * M * N;
    if (fast && fl) return matmul_block(a.f.data() + ao, b.f.data() + bo, r.f.data() + oo, M, K, N);
    if (fast) return matmul_block(a.i.data() + ao, b.i.data() + bo, r.i.data() + oo, M, K, N);
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        if (fl) {
          double s = 0;
          for (int64_t k = 0; k < K; ++k) s += a.getf(ao + i * K + k) * b.getf(bo + k * N + j);
          r.f[oo + i * N + j] = s;
        } else {
          int64_t s = 0;
          for (int64_t k = 0; k < K; ++k) s += a.i[ao + i * K + k] * b.i[bo + k * N + j];
          r.i[oo + i * N + j] = s;
        }
      }
  });
  if (batch.empty() && od.size() == 2) {
    Dims fin;
    if (a0.rank() != 1) fin.push_back(M);
    if (b0.rank() != 1) fin.push_back(N);
    r.shape = fin;
  } else {
    Dims fin = batch;
    if (a0.rank() != 1) fin.push_back(M);
    if (b0.rank() != 1) fin.push_back(N);
    r.shape = fin;
  }
  normalize(r);
  return r;
}

namespace {

inline void put(Tensor& t, int64_t k, double v) {
  if (is_float(t.dt)) t.f[k] = v;
  else t.i[k] = double_to_int(t.dt, v);
}

void need_float(const Tensor& x, const char* op) {
  if (!is_float(x.dt)) fail(std::string(op) + " needs a floating-point input, got " + dt_name(x.dt));
}

void k_matmul(OpCtx& c) { c.set(0, matmul(c.t(0), c.t(1), c.t(0).dt)); }

void k_matmul_integer(OpCtx& c) {
  Tensor a = cast_tensor(c.t(0), DT::I32), b = cast_tensor(c.t(1), DT::I32);
  if (c.has(2)) {
    const Tensor& za = c.t(2);
    const int64_t K = a.shape.back();
    for (int64_t k = 0; k < a.numel(); ++k)
      a.i[k] -= za.geti(za.numel() == 1 ? 0 : (k / K) % std::max<int64_t>(za.numel(), 1));
  }
  if (c.has(3)) {
    const Tensor& zb = c.t(3);
    const int64_t N = b.shape.back();
    for (int64_t k = 0; k < b.numel(); ++k) b.i[k] -= zb.geti(zb.numel() == 1 ? 0 : k % N);
  }
  c.set(0, matmul(a, b, DT::I32));
}

void k_gemm(OpCtx& c) {
  Tensor a = c.t(0), b = c.t(1);
  if (a.rank() != 2 || b.rank() != 2) fail("Gemm needs 2-D A and B");
  if (c.attr_i("transA", 0)) a = transpose(a, {1, 0});
  if (c.attr_i("transB", 0)) b = transpose(b, {1, 0});
  const double alpha = c.attr_f("alpha", 1.0f), beta = c.attr_f("beta", 1.0f);
  Tensor y = matmul(a, b, a.dt);
  if (is_float(y.dt))
    for (double& v : y.f) v *= alpha;
  if (c.has(2)) {
    const Tensor& cc = c.t(2);
    const Dims o = broadcast_shapes({&y.shape, &cc.shape});
    if (o != y.shape) fail("Gemm C does not broadcast to the output");
    for_broadcast(o, std::array<Dims, 1>{bstrides(cc.shape, o)}, [&](int64_t k, const std::array<int64_t, 1>& ix) {
      if (is_float(y.dt)) y.f[k] += beta * cc.getf(ix[0]);
      else y.i[k] += static_cast<int64_t>(beta) * cc.geti(ix[0]);
    });
  }
  normalize(y);
  c.set(0, std::move(y));
}

// Spatial geometry shared by Conv and pooling.
struct Geo {
  int64_t nd = 0;
  Dims in, k, out, stride, dil, pad_lo, pad_hi;
};

Geo geometry(OpCtx& c, const Dims& in_spatial, const Dims& kernel, bool ceil_mode = false) {
  Geo g;
  g.nd = static_cast<int64_t>(in_spatial.size());
  g.in = in_spatial;
  g.k = kernel;
  g.stride = c.attr_ints("strides");
  g.dil = c.attr_ints("dilations");
  if (g.stride.empty()) g.stride.assign(g.nd, 1);
  if (g.dil.empty()) g.dil.assign(g.nd, 1);
  auto pads = c.attr_ints("pads");
  if (pads.empty()) pads.assign(2 * g.nd, 0);
  if (static_cast<int64_t>(pads.size()) != 2 * g.nd || static_cast<int64_t>(g.stride.size()) != g.nd ||
      static_cast<int64_t>(g.dil.size()) != g.nd)
    fail("pads/strides/dilations do not match the spatial rank");
  const std::string ap = c.attr_s("auto_pad", "NOTSET");
  g.pad_lo.assign(g.nd, 0);
  g.pad_hi.assign(g.nd, 0);
  g.out.assign(g.nd, 0);
  for (int64_t d = 0; d < g.nd; ++d) {
    const int64_t ek = (g.k[d] - 1) * g.dil[d] + 1;
    if (g.stride[d] <= 0) fail("stride must be positive");
    if (ap == "SAME_UPPER" || ap == "SAME_LOWER") {
      g.out[d] = (g.in[d] + g.stride[d] - 1) / g.stride[d];
      const int64_t total = std::max<int64_t>(0, (g.out[d] - 1) * g.stride[d] + ek - g.in[d]);
      g.pad_lo[d] = ap == "SAME_UPPER" ? total / 2 : total - total / 2;
      g.pad_hi[d] = total - g.pad_lo[d];
    } else if (ap == "VALID") {
      g.out[d] = (g.in[d] - ek) / g.stride[d] + 1;
    } else {
      g.pad_lo[d] = pads[d];
      g.pad_hi[d] = pads[d + g.nd];
      const int64_t span = g.in[d] + g.pad_lo[d] + g.pad_hi[d] - ek;
      g.out[d] = (ceil_mode ? (span + g.stride[d] - 1) / g.stride[d] : span / g.stride[d]) + 1;
      if (ceil_mode && (g.out[d] - 1) * g.stride[d] >= g.in[d] + g.pad_lo[d]) --g.out[d];
    }
    if (g.out[d] < 0) fail("kernel larger than the padded input");
  }
  return g;
}

// Iterates over every position of a multi-dimensional index space.
template <typename F>
void for_each_index(const Dims& d, F&& f) {
  const int64_t n = checked_numel(d);
  std::vector<int64_t> idx(d.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    f(idx);
    for (int a = static_cast<int>(d.size()) - 1; a >= 0; --a) {
      if (++idx[a] < d[a]) break;
      idx[a] = 0;
    }
  }
}

// Conv of floating-point X and W read in place: per output position the kernel offsets that fall inside the
// input are listed once (in the order of the kernel's index space), then each channel's products are added in
// that order, channel by channel: the sum of the generic loop below, in its order, so the same bits.
void conv_float(const Tensor& x, const Tensor& w, const Tensor* bias, const Geo& g, int64_t cg, int64_t mg,
                Tensor& y) {
  const int64_t N = x.shape[0], M = w.shape[0];
  const Dims xs = strides_of(x.shape), ws = strides_of(w.shape), ys = strides_of(y.shape);
  const int64_t kn = checked_numel(g.k);
  std::vector<int64_t> xoff, woff, kk(g.nd);
  xoff.reserve(kn);
  woff.reserve(kn);
  const bool yf = is_float(y.dt);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m) {
      const double* xb = x.f.data() + n * xs[0] + (m / mg) * cg * xs[1];
      const double* wb = w.f.data() + m * ws[0];
      const double b0 = bias ? bias->getf(m) : 0.0;
      for_each_index(g.out, [&](const std::vector<int64_t>& o) {
        xoff.clear();
        woff.clear();
        std::fill(kk.begin(), kk.end(), 0);
        for (int64_t t = 0; t < kn; ++t) {
          int64_t xo = 0, wo = 0;
          bool inside = true;
          for (int64_t d = 0; d < g.nd && inside; ++d) {
            const int64_t p = o[d] * g.stride[d] + kk[d] * g.dil[d] - g.pad_lo[d];
            inside = p >= 0 && p < g.in[d];
            xo += p * xs[2 + d];
            wo += kk[d] * ws[2 + d];
          }
          if (inside) {
            xoff.push_back(xo);
            woff.push_back(wo);
          }
          for (int64_t d = g.nd - 1; d >= 0; --d) {
            if (++kk[d] < g.k[d]) break;
            kk[d] = 0;
          }
        }
        const size_t np = xoff.size();
        double s = b0;
        for (int64_t ci = 0; ci < cg; ++ci) {
          const double* xc = xb + ci * xs[1];
          const double* wc = wb + ci * ws[1];
          for (size_t t = 0; t < np; ++t) s += xc[xoff[t]] * wc[woff[t]];
        }
        int64_t yo = n * ys[0] + m * ys[1];
        for (int64_t d = 0; d < g.nd; ++d) yo += o[d] * ys[2 + d];
        if (yf) y.f[yo] = s;
        else y.i[yo] = double_to_int(y.dt, s);
      });
    }
}

Tensor conv_core(OpCtx& c, const Tensor& x, const Tensor& w, const Tensor* bias, DT out_dt) {
  if (x.rank() < 3 || w.rank() != x.rank()) fail("Conv needs X and W of the same rank >= 3");
  const int64_t N = x.shape[0], C = x.shape[1], M = w.shape[0];
  const int64_t group = c.attr_i("group", 1);
  if (group <= 0 || C % group || M % group || w.shape[1] != C / group) fail("Conv group does not match channels");
  Dims sp(x.shape.begin() + 2, x.shape.end()), ks(w.shape.begin() + 2, w.shape.end());
  Geo g = geometry(c, sp, ks);
  Dims od{N, M};
  od.insert(od.end(), g.out.begin(), g.out.end());
  Tensor y(out_dt, od);
  const Dims xs = strides_of(x.shape), ws = strides_of(w.shape), ys = strides_of(od);
  const int64_t cg = C / group, mg = M / group;
  if (is_float(x.dt) && is_float(w.dt) && static_cast<int64_t>(x.f.size()) >= x.numel() &&
      static_cast<int64_t>(w.f.size()) >= w.numel()) {
    conv_float(x, w, bias, g, cg, mg, y);
    normalize(y);
    return y;
  }
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m) {
      const int64_t gi = m / mg;
      for_each_index(g.out, [&](const std::vector<int64_t>& o) {
        double s = bias ? bias->getf(m) : 0.0;
        for (int64_t ci = 0; ci < cg; ++ci)
          for_each_index(g.k, [&](const std::vector<int64_t>& kk) {
            int64_t xo = n * xs[0] + (gi * cg + ci) * xs[1];
            int64_t wo = m * ws[0] + ci * ws[1];
            for (int64_t d = 0; d < g.nd; ++d) {
              const int64_t p = o[d] * g.stride[d] + kk[d] * g.dil[d] - g.pad_lo[d];
              if (p < 0 || p >= g.in[d]) return;
              xo += p * xs[2 + d];
              wo += kk[d] * ws[2 + d];
            }
            s += x.getf(xo) * w.getf(wo);
          });
        int64_t yo = n * ys[0] + m * ys[1];
        for (int64_t d = 0; d < g.nd; ++d) yo += o[d] * ys[2 + d];
        put(y, yo, s);
      });
    }
  normalize(y);
  return y;
}

void k_conv(OpCtx& c) { c.set(0, conv_core(c, c.t(0), c.t(1), c.has(2) ? &c.t(2) : nullptr, c.t(0).dt)); }

// x - zero_point as f64 (zero point scalar or per axis-`axis` slice)
Tensor shifted(const Tensor& x, const Tensor* zp, int64_t axis) {
  Tensor r(DT::F64, x.shape);
  int64_t inner = 1;
  if (zp && zp->numel() > 1)
    for (size_t a = axis + 1; a < x.rank(); ++a) inner *= x.shape[a];
  for (int64_t k = 0; k < x.numel(); ++k) {
    double z = 0;
    if (zp && zp->numel() == 1) z = zp->getf(0);
    else if (zp && zp->numel() > 1) z = zp->getf((k / inner) % x.shape[axis]);
    r.f[k] = x.getf(k) - z;
  }
  return r;
}

void k_conv_integer(OpCtx& c) {
  Tensor x = shifted(c.t(0), c.has(2) ? &c.t(2) : nullptr, 1);
  Tensor w = shifted(c.t(1), c.has(3) ? &c.t(3) : nullptr, 0);
  Tensor y = conv_core(c, x, w, nullptr, DT::F64);
  c.set(0, cast_tensor(y, DT::I32));
}

Tensor requantize(const Tensor& real, double scale, const Tensor& zp_t) {
  const DT dt = zp_t.dt;
  Tensor y(dt, real.shape);
  const double zp = zp_t.numel() ? zp_t.getf(0) : 0;
  const double lo = dt == DT::U8 ? 0 : -128, hi = dt == DT::U8 ? 255 : 127;
  for (int64_t k = 0; k < y.numel(); ++k)
    y.i[k] = static_cast<int64_t>(std::clamp(std::nearbyint(real.f[k] / scale) + zp, lo, hi));
  return y;
}

void k_qlinear_matmul(OpCtx& c) {
  Tensor a = shifted(c.t(0), &c.t(2), static_cast<int64_t>(c.t(0).rank()) - 2);
  Tensor b = shifted(c.t(3), &c.t(5), static_cast<int64_t>(c.t(3).rank()) - 1);
  if (c.t(1).numel() != 1 || c.t(4).numel() != 1)
    throw ExecError(ErrKind::Unsupported, "unsupported op QLinearMatMul with per-axis scales at " + c.path);
  Tensor y = matmul(a, b, DT::F64);
  for (double& v : y.f) v *= c.t(1).getf(0) * c.t(4).getf(0);
  c.set(0, requantize(y, c.t(6).getf(0), c.t(7)));
}

void k_qlinear_conv(OpCtx& c) {
  Tensor x = shifted(c.t(0), &c.t(2), 1);
  Tensor w = shifted(c.t(3), &c.t(5), 0);
  const Tensor& xs = c.t(1);
  const Tensor& ws = c.t(4);
  Tensor y = conv_core(c, x, w, nullptr, DT::F64);
  const int64_t M = y.rank() > 1 ? y.shape[1] : 1;
  const int64_t inner = M ? y.numel() / std::max<int64_t>(y.shape[0] * M, 1) : 1;
  for (int64_t k = 0; k < y.numel(); ++k) {
    const int64_t m = (k / inner) % M;
    const double wsc = ws.numel() == 1 ? ws.getf(0) : ws.getf(m);
    double v = y.f[k];
    if (c.has(8)) v += c.t(8).getf(m);
    y.f[k] = v * xs.getf(0) * wsc;
  }
  c.set(0, requantize(y, c.t(6).getf(0), c.t(7)));
}

template <bool Max>
void k_pool(OpCtx& c) {
  const Tensor& x = c.t(0);
  if (x.rank() < 3) fail("pooling needs rank >= 3");
  const auto ks = c.attr_ints("kernel_shape");
  Dims sp(x.shape.begin() + 2, x.shape.end());
  if (ks.size() != sp.size()) fail("kernel_shape does not match the spatial rank");
  Geo g = geometry(c, sp, ks, c.attr_i("ceil_mode", 0) != 0);
  const bool count_pad = c.attr_i("count_include_pad", 0) != 0;
  Dims od{x.shape[0], x.shape[1]};
  od.insert(od.end(), g.out.begin(), g.out.end());
  Tensor y(x.dt, od);
  Tensor ind(DT::I64, c.want(1) ? od : Dims{0});
  const Dims xs = strides_of(x.shape), ys = strides_of(od);
  for (int64_t n = 0; n < x.shape[0]; ++n)
    for (int64_t ch = 0; ch < x.shape[1]; ++ch)
      for_each_index(g.out, [&](const std::vector<int64_t>& o) {
        double s = Max ? -std::numeric_limits<double>::infinity() : 0.0;
        int64_t cnt = 0, padded = 0, arg = -1;
        for_each_index(g.k, [&](const std::vector<int64_t>& kk) {
          int64_t xo = n * xs[0] + ch * xs[1];
          bool in = true, in_pad = true;
          for (int64_t d = 0; d < g.nd; ++d) {
            const int64_t p = o[d] * g.stride[d] + kk[d] * g.dil[d] - g.pad_lo[d];
            if (p < 0 || p >= g.in[d]) in = false;
            if (p < -g.pad_lo[d] || p >= g.in[d] + g.pad_hi[d]) in_pad = false;
            xo += p * xs[2 + d];
          }
          if (in_pad) ++padded;
          if (!in) return;
          const double v = x.getf(xo);
          ++cnt;
          if (Max) {
            if (v > s) {
              s = v;
              arg = xo;
            }
          } else s += v;
        });
        int64_t yo = n * ys[0] + ch * ys[1];
        for (int64_t d = 0; d < g.nd; ++d) yo += o[d] * ys[2 + d];
        if (Max) put(y, yo, s);
        else put(y, yo, s / static_cast<double>(count_pad ? padded : std::max<int64_t>(cnt, 1)));
        if (c.want(1) && Max) {
          // index into the unpadded input: row-major (storage_order 0) or column-major over the spatial dims (1)
          if (c.attr_i("storage_order", 0) == 1 && arg >= 0) {
            int64_t rem = arg - n * xs[0] - ch * xs[1], col = 0, mul = 1;
            for (int64_t d = 0; d < g.nd; ++d) {
              const int64_t co = rem / xs[2 + d];
              rem %= xs[2 + d];
              col += co * mul;
              mul *= g.in[d];
            }
            ind.i[yo] = n * xs[0] + ch * xs[1] + col;
          } else {
            ind.i[yo] = arg;
          }
        }
      });
  normalize(y);
  c.set(0, std::move(y));
  if (c.want(1)) c.set(1, std::move(ind));
}

template <bool Max>
void k_global_pool(OpCtx& c) {
  const Tensor& x = c.t(0);
  if (x.rank() < 2) fail("global pooling needs rank >= 2");
  Dims od{x.shape[0], x.shape[1]};
  for (size_t a = 2; a < x.rank(); ++a) od.push_back(1);
  Tensor y(x.dt, od);
  const int64_t nc = x.shape[0] * x.shape[1];
  const int64_t inner = nc != 0 ? x.numel() / nc : 0;
  for (int64_t k = 0; k < x.shape[0] * x.shape[1]; ++k) {
    double s = Max ? -std::numeric_limits<double>::infinity() : 0.0;
    for (int64_t i = 0; i < inner; ++i) s = Max ? std::max(s, x.getf(k * inner + i)) : s + x.getf(k * inner + i);
    put(y, k, Max ? s : s / static_cast<double>(inner));
  }
  normalize(y);
  c.set(0, std::move(y));
}

void k_batchnorm(OpCtx& c) {
  need_float(c.t(0), "BatchNormalization");
  const bool training = c.attr_i("training_mode", 0) != 0;
  const Tensor& x = c.t(0);
  const Tensor &sc = c.t(1), &b = c.t(2), &mean = c.t(3), &var = c.t(4);
  const double eps = c.attr_f("epsilon", 1e-5f);
  Tensor y(x.dt, x.shape);
  const int64_t C = x.rank() > 1 ? x.shape[1] : 1;
  int64_t inner = 1;
  for (size_t a = 2; a < x.rank(); ++a) inner *= x.shape[a];
  std::vector<double> m(C), v(C);
  for (int64_t ch = 0; ch < C; ++ch) {
    m[ch] = mean.getf(ch);
    v[ch] = var.getf(ch);
  }
  if (training) {  // batch statistics (population variance) over every axis but 1
    std::vector<double> s(C, 0), s2(C, 0);
    const double n = static_cast<double>(C ? x.numel() / C : 1);
    for (int64_t k = 0; k < x.numel(); ++k) s[(k / inner) % C] += x.f[k];
    for (int64_t ch = 0; ch < C; ++ch) m[ch] = s[ch] / n;
    for (int64_t k = 0; k < x.numel(); ++k) {
      const double dlt = x.f[k] - m[(k / inner) % C];
      s2[(k / inner) % C] += dlt * dlt;
    }
    for (int64_t ch = 0; ch < C; ++ch) v[ch] = s2[ch] / n;
  }
  for (int64_t k = 0; k < x.numel(); ++k) {
    const int64_t ch = (k / inner) % C;
    put(y, k, sc.getf(ch) * (x.f[k] - m[ch]) / std::sqrt(v[ch] + eps) + b.getf(ch));
  }
  normalize(y);
  c.set(0, std::move(y));
  if (training) {
    const double mom = c.attr_f("momentum", 0.9f);
    Tensor rm(mean.dt, mean.shape), rv(var.dt, var.shape);
    for (int64_t ch = 0; ch < C && ch < rm.numel() && ch < rv.numel(); ++ch) {
      put(rm, ch, mean.getf(ch) * mom + m[ch] * (1 - mom));
      put(rv, ch, var.getf(ch) * mom + v[ch] * (1 - mom));
    }
    normalize(rm);
    normalize(rv);
    if (c.want(1)) c.set(1, std::move(rm));
    if (c.want(2)) c.set(2, std::move(rv));
  }
}

void k_instancenorm(OpCtx& c) {
  need_float(c.t(0), "InstanceNormalization");
  const Tensor& x = c.t(0);
  const Tensor &sc = c.t(1), &b = c.t(2);
  const double eps = c.attr_f("epsilon", 1e-5f);
  Tensor y(x.dt, x.shape);
  const int64_t C = x.shape[1];
  int64_t inner = 1;
  for (size_t a = 2; a < x.rank(); ++a) inner *= x.shape[a];
  for (int64_t nc = 0; nc < x.shape[0] * C; ++nc) {
    double m = 0, v = 0;
    for (int64_t i = 0; i < inner; ++i) m += x.f[nc * inner + i];
    m /= static_cast<double>(inner);
    for (int64_t i = 0; i < inner; ++i) v += (x.f[nc * inner + i] - m) * (x.f[nc * inner + i] - m);
    v /= static_cast<double>(inner);
    for (int64_t i = 0; i < inner; ++i)
      put(y, nc * inner + i, sc.getf(nc % C) * (x.f[nc * inner + i] - m) / std::sqrt(v + eps) + b.getf(nc % C));
  }
  normalize(y);
  c.set(0, std::move(y));
}

void k_lrn(OpCtx& c) {
  need_float(c.t(0), "LRN");
  const Tensor& x = c.t(0);
  const double alpha = c.attr_f("alpha", 1e-4f), beta = c.attr_f("beta", 0.75f), bias = c.attr_f("bias", 1.0f);
  const int64_t size = c.attr_i("size", 1);
  Tensor y(x.dt, x.shape);
  const int64_t C = x.shape[1];
  int64_t inner = 1;
  for (size_t a = 2; a < x.rank(); ++a) inner *= x.shape[a];
  for (int64_t k = 0; k < x.numel(); ++k) {
    const int64_t ch = (k / inner) % C, base = k - ch * inner;
    const int64_t lo = std::max<int64_t>(0, ch - (size - 1) / 2),
                  hi = std::min<int64_t>(C - 1, ch + (size - 1) / 2 + ((size - 1) % 2));
    double s = 0;
    for (int64_t j = lo; j <= hi; ++j) s += x.f[base + j * inner] * x.f[base + j * inner];
    put(y, k, x.f[k] / std::pow(bias + alpha / static_cast<double>(size) * s, beta));
  }
  normalize(y);
  c.set(0, std::move(y));
}

// Per-axis parameter of a quantize/dequantize op (a scalar, or one value per index of `axis` of x), its values
// and the division by the inner extent worked out once per tensor.
class ParamOf {
 public:
  ParamOf(const Tensor& p, int64_t axis, const Tensor& x) : p_(p) {
    if (p.numel() == 1 || x.numel() == 0) return;
    if (axis < 0) fail("per-axis quantization parameter of " + p.describe() + " with an axis out of range");
    for (size_t a = axis + 1; a < x.rank(); ++a) inner_ *= x.shape[a];
    dim_ = x.shape[axis];
    v_.resize(std::min(p.numel(), dim_));
    for (size_t k = 0; k < v_.size(); ++k) v_[k] = p.getf(static_cast<int64_t>(k));
  }
  double at(int64_t k) const {
    if (dim_ == 0) return p_.getf(0);
    const int64_t j = (k / inner_) % dim_;
    if (j >= static_cast<int64_t>(v_.size())) p_.out_of_range(j);
    return v_[j];
  }

 private:
  const Tensor& p_;
  int64_t inner_ = 1, dim_ = 0;
  std::vector<double> v_;
};

void k_quantize(OpCtx& c) {
  const Tensor& x = c.t(0);
  const Tensor& s = c.t(1);
  const DT dt = c.has(2) ? c.t(2).dt : DT::U8;
  const int64_t ra = c.attr_i("axis", 1), rr = static_cast<int64_t>(x.rank());
  const int64_t axis = ra >= -rr && ra < rr ? (ra < 0 ? ra + rr : ra) : -1;
  Tensor y(dt, x.shape);
  const double lo = dt == DT::U8 ? 0 : dt == DT::I8 ? -128 : dt == DT::U16 ? 0 : -32768;
  const double hi = dt == DT::U8 ? 255 : dt == DT::I8 ? 127 : dt == DT::U16 ? 65535 : 32767;
  const bool has_zp = c.has(2);
  const ParamOf zps(has_zp ? c.t(2) : s, axis, x), scs(s, axis, x);
  const int64_t n = x.numel();
  for (int64_t k = 0; k < n; ++k) {
    const double zp = has_zp ? zps.at(k) : 0;
    const double sc = scs.at(k);
    // divide in the input's own precision, as the reference does (float32 rounding decides .5 ties)
    const double ratio =
        x.dt == DT::F64 ? x.getf(k) / sc : static_cast<double>(static_cast<float>(x.getf(k)) / static_cast<float>(sc));
    const double q = std::nearbyint(ratio) + zp;
    y.i[k] = static_cast<int64_t>(std::clamp(q, lo, hi));
  }
  c.set(0, std::move(y));
}

void k_dequantize(OpCtx& c) {
  const Tensor& x = c.t(0);
  const Tensor& s = c.t(1);
  const int64_t ra = c.attr_i("axis", 1), rr = static_cast<int64_t>(x.rank());
  const int64_t axis = ra >= -rr && ra < rr ? (ra < 0 ? ra + rr : ra) : -1;
  Tensor y(s.dt, x.shape);
  const bool has_zp = c.has(2);
  const ParamOf zps(has_zp ? c.t(2) : s, axis, x), scs(s, axis, x);
  const int64_t n = x.numel();
  for (int64_t k = 0; k < n; ++k) {
    const double zp = has_zp ? zps.at(k) : 0;
    put(y, k, (x.getf(k) - zp) * scs.at(k));
  }
  normalize(y);
  c.set(0, std::move(y));
}

void k_det(OpCtx& c) {
  need_float(c.t(0), "Det");
  const Tensor& x = c.t(0);
  if (x.rank() < 2 || x.shape[x.rank() - 1] != x.shape[x.rank() - 2]) fail("Det needs square matrices");
  const int64_t n = x.shape.back();
  Dims od(x.shape.begin(), x.shape.end() - 2);
  Tensor y(x.dt, od);
  for (int64_t b = 0; b < y.numel(); ++b) {
    std::vector<double> m(x.f.begin() + b * n * n, x.f.begin() + (b + 1) * n * n);
    double det = 1;
    for (int64_t col = 0; col < n; ++col) {
      int64_t piv = col;
      for (int64_t r = col + 1; r < n; ++r)
        if (std::abs(m[r * n + col]) > std::abs(m[piv * n + col])) piv = r;
      if (m[piv * n + col] == 0) {
        det = 0;
        break;
      }
      if (piv != col) {
        for (int64_t j = 0; j < n; ++j) std::swap(m[piv * n + j], m[col * n + j]);
        det = -det;
      }
      det *= m[col * n + col];
      for (int64_t r = col + 1; r < n; ++r) {
        const double f = m[r * n + col] / m[col * n + col];
        for (int64_t j = col; j < n; ++j) m[r * n + j] -= f * m[col * n + j];
      }
    }
    put(y, b, det);
  }
  normalize(y);
  c.set(0, std::move(y));
}

void k_conv_transpose(OpCtx& c) {
  const Tensor& x = c.t(0);
  const Tensor& w = c.t(1);
  need_float(x, "ConvTranspose");
  if (x.rank() < 3 || w.rank() != x.rank()) fail("ConvTranspose needs X and W of the same rank >= 3");
  const int64_t nd = static_cast<int64_t>(x.rank()) - 2;
  const int64_t N = x.shape[0], C = x.shape[1], group = c.attr_i("group", 1);
  if (group <= 0 || C % group || w.shape[0] != C) fail("ConvTranspose group does not match channels");
  const int64_t Mg = w.shape[1], M = Mg * group;
  auto strides = c.attr_ints("strides"), dil = c.attr_ints("dilations"), outpad = c.attr_ints("output_padding");
  auto pads = c.attr_ints("pads"), out_shape = c.attr_ints("output_shape");
  if (strides.empty()) strides.assign(nd, 1);
  if (dil.empty()) dil.assign(nd, 1);
  if (outpad.empty()) outpad.assign(nd, 0);
  if (pads.empty()) pads.assign(2 * nd, 0);
  if (static_cast<int64_t>(strides.size()) != nd || static_cast<int64_t>(dil.size()) != nd ||
      static_cast<int64_t>(outpad.size()) != nd || static_cast<int64_t>(pads.size()) != 2 * nd)
    fail("ConvTranspose attributes do not match the spatial rank");
  const std::string ap = c.attr_s("auto_pad", "NOTSET");
  Dims out(nd), lo(nd);
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t in = x.shape[2 + d], ek = (w.shape[2 + d] - 1) * dil[d] + 1;
    const int64_t full = strides[d] * (in - 1) + outpad[d] + ek;
    if (!out_shape.empty() || ap == "SAME_UPPER" || ap == "SAME_LOWER") {
      const int64_t want = !out_shape.empty() ? out_shape[out_shape.size() - nd + d] : in * strides[d];
      const int64_t total = full - want;
      const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);  // floor division, as the spec's Python
      lo[d] = ap == "SAME_UPPER" ? half : total - half;
      out[d] = want;
    } else {
      lo[d] = pads[d];
      out[d] = full - pads[d] - pads[d + nd];
    }
    if (out[d] < 0) fail("ConvTranspose output size is negative");
  }
  Dims od{N, M};
  od.insert(od.end(), out.begin(), out.end());
  Tensor y(x.dt, od);
  const Dims xs = strides_of(x.shape), ws = strides_of(w.shape), ys = strides_of(od);
  Dims xsp(x.shape.begin() + 2, x.shape.end()), ksp(w.shape.begin() + 2, w.shape.end());
  for (int64_t n = 0; n < N; ++n)
    for (int64_t ci = 0; ci < C; ++ci) {
      const int64_t g = ci / (C / group);
      for_each_index(xsp, [&](const std::vector<int64_t>& ip) {
        int64_t xo = n * xs[0] + ci * xs[1];
        for (int64_t d = 0; d < nd; ++d) xo += ip[d] * xs[2 + d];
        const double xv = x.getf(xo);
        for_each_index(ksp, [&](const std::vector<int64_t>& kk) {
          int64_t yo = n * ys[0], wo = ci * ws[0];
          for (int64_t d = 0; d < nd; ++d) {
            const int64_t o = ip[d] * strides[d] + kk[d] * dil[d] - lo[d];
            if (o < 0 || o >= out[d]) return;
            yo += o * ys[2 + d];
            wo += kk[d] * ws[2 + d];
          }
          for (int64_t m = 0; m < Mg; ++m) y.f[yo + (g * Mg + m) * ys[1]] += xv * w.getf(wo + m * ws[1]);
        });
      });
    }
  if (c.has(2))
    for (int64_t k = 0; k < y.numel(); ++k) y.f[k] += c.t(2).getf((k / ys[1]) % M);
  normalize(y);
  c.set(0, std::move(y));
}

}  // namespace

void register_nn_ops(KernelTable& t) {
  t["MatMul"] = k_matmul;
  t["MatMulInteger"] = k_matmul_integer;
  t["Gemm"] = k_gemm;
  t["Conv"] = k_conv;
  t["MaxPool"] = k_pool<true>;
  t["AveragePool"] = k_pool<false>;
  t["GlobalMaxPool"] = k_global_pool<true>;
  t["GlobalAveragePool"] = k_global_pool<false>;
  t["BatchNormalization"] = k_batchnorm;
  t["InstanceNormalization"] = k_instancenorm;
  t["LRN"] = k_lrn;
  t["QuantizeLinear"] = k_quantize;
  t["DequantizeLinear"] = k_dequantize;
  t["Det"] = k_det;
  t["ConvTranspose"] = k_conv_transpose;
  t["ConvInteger"] = k_conv_integer;
  t["QLinearMatMul"] = k_qlinear_matmul;
  t["QLinearConv"] = k_qlinear_conv;
}

}  // namespace condlint::exec
