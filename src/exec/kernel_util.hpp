// Helpers shared by the kernels: broadcasting, axes, strides.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "exec/interpreter.hpp"
#include "exec/tensor.hpp"

namespace condlint::exec {

inline Dims strides_of(const Dims& d) {
  Dims s(d.size(), 1);
  for (int k = static_cast<int>(d.size()) - 2; k >= 0; --k) s[k] = s[k + 1] * d[k + 1];
  return s;
}

// Normalizes a possibly negative axis against rank r (inclusive upper bound when `extra`).
inline int64_t norm_axis(int64_t a, int64_t r, const char* what = "axis") {
  if (a < -r || a >= r)
    fail(std::string(what) + " " + std::to_string(a) + " out of range for rank " + std::to_string(r));
  return a < 0 ? a + r : a;
}

// Multidirectional (numpy) broadcast of shapes.
inline Dims broadcast_shapes(const std::vector<const Dims*>& ds) {
  size_t r = 0;
  for (auto* d : ds) r = std::max(r, d->size());
  Dims out(r, 1);
  for (auto* d : ds) {
    const size_t off = r - d->size();
    for (size_t k = 0; k < d->size(); ++k) {
      const int64_t x = (*d)[k];
      int64_t& o = out[off + k];
      if (x == o || x == 1) continue;
      if (o == 1) o = x;
      else fail("shapes " + dims_str(*ds[0]) + " and " + dims_str(*d) + " cannot be broadcast");
    }
  }
  return out;
}

// Strides of `d` seen through the broadcast output shape `out` (0 on broadcast dims).
inline Dims bstrides(const Dims& d, const Dims& out) {
  Dims s(out.size(), 0);
  const Dims own = strides_of(d);
  const size_t off = out.size() - d.size();
  for (size_t k = 0; k < d.size(); ++k) s[off + k] = d[k] == 1 ? 0 : own[k];
  return s;
}

// Calls f(out_index, idx_0, idx_1, ...) for every element of the broadcast output.
template <size_t N, typename F>
void for_broadcast(const Dims& out, const std::array<Dims, N>& st, F&& f) {
  const int64_t n = checked_numel(out);
  if (n == 0) return;
  const size_t r = out.size();
  std::vector<int64_t> ctr(r, 0);
  std::array<int64_t, N> idx{};
  for (int64_t o = 0; o < n; ++o) {
    f(o, idx);
    for (int k = static_cast<int>(r) - 1; k >= 0; --k) {
      ++ctr[k];
      for (size_t j = 0; j < N; ++j) idx[j] += st[j][k];
      if (ctr[k] < out[k]) break;
      for (size_t j = 0; j < N; ++j) idx[j] -= st[j][k] * out[k];
      ctr[k] = 0;
    }
  }
}

inline std::vector<int64_t> to_i64s(const Tensor& t) {
  std::vector<int64_t> v(t.numel());
  for (int64_t k = 0; k < t.numel(); ++k) v[k] = t.geti(k);
  return v;
}

inline Tensor scalar_tensor(DT dt, double v) {
  Tensor t(dt, {});
  if (is_float(dt)) t.f[0] = round_to(dt, v);
  else t.i[0] = double_to_int(dt, v);
  return t;
}

inline Tensor i64_tensor(const std::vector<int64_t>& v, Dims shape) {
  Tensor t(DT::I64, std::move(shape));
  for (size_t k = 0; k < v.size() && k < t.i.size(); ++k) t.i[k] = v[k];
  return t;
}

// Copies element src[k] of `a` into dst[j] of `b` (same storage kind).
inline void copy_elem(const Tensor& a, int64_t k, Tensor& b, int64_t j) {
  if (is_float(a.dt)) b.f[j] = a.f[k];
  else if (is_string(a.dt)) b.s[j] = a.s[k];
  else b.i[j] = a.i[k];
}

// Slice of `x` at index `k` along axis `axis` (the axis removed).
Tensor take_index(const Tensor& x, int64_t axis, int64_t k);
// Stacks same-shaped tensors along a new axis.
Tensor stack(const std::vector<TensorP>& xs, int64_t axis, DT dt_if_empty, const Dims& elem_shape_if_empty);
Tensor concat(const std::vector<const Tensor*>& xs, int64_t axis);
Tensor transpose(const Tensor& x, const std::vector<int64_t>& perm);
Tensor reshape_copy(const Tensor& x, Dims shape);
// Matrix multiply with numpy broadcasting of batch dims; values as double, result in a's type.
Tensor matmul(const Tensor& a, const Tensor& b, DT out);

void register_elementwise(KernelTable& t);
void register_shape_ops(KernelTable& t);
void register_reduce_ops(KernelTable& t);
void register_nn_ops(KernelTable& t);
void register_sequence_ops(KernelTable& t);
void register_control_flow(KernelTable& t);
void register_resize_ops(KernelTable& t);
void register_extra_ops(KernelTable& t);
void register_rnn_ops(KernelTable& t);  // also ai.onnx.preview.training ops, keyed "domain.Op"
void register_norm_ops(KernelTable& t);  // RMS normalizations (com.microsoft ones keyed "com.microsoft.Op"), RoiAlign
void register_attention_ops(KernelTable& t);  // ai.onnx Attention, com.microsoft GroupQueryAttention

// TopK of ONNX and OpenVINO IR: the k largest (or smallest) along `axis`, ties by lower index, k past the dim's length
// clamped to it (ONNX's kernel refuses that before calling); sorted best first, or by ascending index (`by_index`,
// IR's sort="index"). Returns the values and the indices (of `index_type`).
std::vector<Tensor> topk(const Tensor& x, int64_t k, int64_t axis, bool largest, bool by_index, DT index_type);

}  // namespace condlint::exec
