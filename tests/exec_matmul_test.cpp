// The executor's MatMul against the plain triple loop it replaced: the same bits for every shape, the tiled
// part and the edges alike (rows not a multiple of 4, columns not of 8, K past one tile), with broadcast batches.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "exec/kernel_util.hpp"

namespace condlint::exec {
namespace {

Tensor random_tensor(DT dt, const Dims& shape, std::mt19937& rng) {
  Tensor t(dt, shape);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  std::uniform_int_distribution<int64_t> ui(-50, 50);
  for (int64_t k = 0; k < t.numel(); ++k) {
    if (is_float(dt)) t.f[k] = u(rng);
    else t.i[k] = ui(rng);
  }
  return t;
}

// What matmul computed before it was tiled: per element, a sum from 0 over k in ascending order.
Tensor plain_matmul(const Tensor& a, const Tensor& b) {
  const int64_t M = a.shape[a.rank() - 2], K = a.shape.back(), N = b.shape.back();
  const int64_t batch = a.numel() / (M * K);
  Dims od(a.shape.begin(), a.shape.end() - 1);
  od.push_back(N);
  Tensor r(a.dt, od);
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        const int64_t bo = b.rank() == 2 ? 0 : bi * K * N;
        if (is_float(a.dt)) {
          double s = 0;
          for (int64_t k = 0; k < K; ++k) s += a.f[bi * M * K + i * K + k] * b.f[bo + k * N + j];
          r.f[bi * M * N + i * N + j] = s;
        } else {
          int64_t s = 0;
          for (int64_t k = 0; k < K; ++k) s += a.i[bi * M * K + i * K + k] * b.i[bo + k * N + j];
          r.i[bi * M * N + i * N + j] = s;
        }
      }
  normalize(r);
  return r;
}

TEST(ExecMatMul, TiledSumsAreTheSameBitsAsThePlainLoop) {
  std::mt19937 rng(7);
  const std::vector<std::pair<Dims, Dims>> cases = {
      {{5, 300}, {300, 19}},    // K past one tile, edges in both directions
      {{8, 16}, {16, 264}},     // N past one tile, exact register blocks
      {{3, 7}, {7, 5}},         // smaller than one register block
      {{2, 9, 33}, {2, 33, 17}},  // batched
      {{2, 6, 513}, {513, 9}},  // batched against one matrix, K over two tiles
  };
  for (DT dt : {DT::F64, DT::F32}) {
    for (const auto& [sa, sb] : cases) {
      const Tensor a = random_tensor(dt, sa, rng), b = random_tensor(dt, sb, rng);
      Tensor a1 = a, b1 = b;
      normalize(a1);
      normalize(b1);
      const Tensor got = matmul(a1, b1, dt), want = plain_matmul(a1, b1);
      ASSERT_EQ(got.shape, want.shape) << got.describe();
      ASSERT_EQ(got.f.size(), want.f.size());
      EXPECT_EQ(std::memcmp(got.f.data(), want.f.data(), got.f.size() * sizeof(double)), 0)
          << dt_name(dt) << " " << a.describe() << " x " << b.describe();
    }
  }
}

TEST(ExecMatMul, IntegerProductsAreExact) {
  std::mt19937 rng(11);
  const Tensor a = random_tensor(DT::I32, {2, 7, 301}, rng), b = random_tensor(DT::I32, {301, 13}, rng);
  const Tensor got = matmul(a, b, DT::I32), want = plain_matmul(a, b);
  EXPECT_EQ(got.shape, want.shape);
  EXPECT_EQ(got.i, want.i);
}

TEST(ExecMatMul, VectorOperandsKeepTheirShapes) {
  std::mt19937 rng(3);
  const Tensor v = random_tensor(DT::F64, {6}, rng), m = random_tensor(DT::F64, {6, 4}, rng);
  const Tensor r = matmul(v, m, DT::F64);
  ASSERT_EQ(r.shape, Dims{4});
  for (int64_t j = 0; j < 4; ++j) {
    double s = 0;
    for (int64_t k = 0; k < 6; ++k) s += v.f[k] * m.f[k * 4 + j];
    EXPECT_EQ(r.f[j], s);
  }
}

}  // namespace
}  // namespace condlint::exec
