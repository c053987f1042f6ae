// Runs the hand-written thread-level kernels of testdata/targets/cpu on small
// inputs and compares them with straightforward C++ computations.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "targets/cpu/cpu_codegen.h"
#include "targets/cpu/cpu_test_util.h"
#include "targets/cpu/float_reference.h"

namespace tile_ir::cpu {
namespace {

using test_util::GuardedBuffer;
using test_util::RunGrid;

class KernelTest : public ::testing::Test {
 protected:
  BlockFn Load(const std::string& file, const std::string& kernel) {
    return loader_.Load(file, kernel);
  }

  test_util::KernelLoader loader_;
  std::mt19937 random_{20261129};
};

std::vector<float> RandomFloats(std::mt19937& random, size_t n, float lo, float hi) {
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(random);
  return v;
}

TEST_F(KernelTest, AxpyCoversARaggedTail) {
  BlockFn axpy = Load("elementwise.tile", "axpy");
  ASSERT_NE(axpy, nullptr);
  int32_t n = 1000;
  std::vector<float> x = RandomFloats(random_, n, -4, 4), y = RandomFloats(random_, n, -4, 4);
  std::vector<float> z(n + 24, -7.0f);  // the last block's tail must stay untouched
  float alpha = 1.5f;
  RunGrid(axpy, {x.data(), y.data(), z.data(), &alpha, &n}, (n + 255) / 256);
  for (int i = 0; i < n; ++i) EXPECT_FLOAT_EQ(z[i], alpha * x[i] + y[i]) << i;
  for (int i = n; i < n + 24; ++i) EXPECT_EQ(z[i], -7.0f);
}

TEST_F(KernelTest, VectorLoadsStoresGathersAndScatters) {
  BlockFn scale = Load("elementwise.tile", "scale_vec");
  BlockFn interleave = Load("elementwise.tile", "interleave");
  ASSERT_NE(scale, nullptr);
  ASSERT_NE(interleave, nullptr);
  std::vector<float> x(64), z(64), even(32), odd(32), back(64, 0.0f);
  for (int i = 0; i < 64; ++i) x[i] = static_cast<float>(i * i % 37) - 3.0f;
  float s = -0.25f;
  RunGrid(scale, {x.data(), z.data(), &s}, 8);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(z[i], x[i] * s);
  RunGrid(interleave, {x.data(), even.data(), odd.data(), back.data()}, 4);
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(even[i], x[2 * i]);
    EXPECT_EQ(odd[i], x[2 * i + 1]);
    EXPECT_EQ(back[2 * i + 1], x[2 * i]);
    EXPECT_EQ(back[2 * i], x[i / 8]);  // a broadcast index gathers one element
  }
}

TEST_F(KernelTest, I64DimensionsSelectGuardsAndNaN) {
  BlockFn clamp = Load("elementwise.tile", "clamp_relu");
  ASSERT_NE(clamp, nullptr);
  int64_t n = 150;
  GuardedBuffer x_memory(n * sizeof(float), GuardedBuffer::Side::kGuardEnd);
  auto* x = static_cast<float*>(x_memory.data());
  std::vector<float> values = RandomFloats(random_, n, -2, 2);
  std::copy(values.begin(), values.end(), x);
  x[3] = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> y(n);
  float lo = -0.5f;
  RunGrid(clamp, {x, y.data(), &lo, &n}, (n + 63) / 64);
  for (int i = 0; i < n; ++i) {
    float expected = std::isnan(x[i]) ? -1.0f : std::max(x[i] > lo ? x[i] : lo, 0.0f);
    EXPECT_EQ(y[i], expected) << i;
  }
}

TEST_F(KernelTest, ThreadBoundLoopsRunOneThreadAfterAnother) {
  BlockFn kernel = Load("elementwise.tile", "threads_emulated");
  ASSERT_NE(kernel, nullptr);
  std::vector<int32_t> x(32), y(32);
  for (int i = 0; i < 32; ++i) x[i] = i * 3 - 40;
  RunGrid(kernel, {x.data(), y.data()}, 1);
  for (int tx = 0; tx < 8; ++tx) {
    for (int v = 0; v < 4; ++v) EXPECT_EQ(y[tx * 4 + v], x[tx * 4 + 3 - v] * 2 + tx);
  }
}

TEST_F(KernelTest, VectorBodyWithScalarTailConvertsF16) {
  BlockFn kernel = Load("vector_access.tile", "vector_tail");
  ASSERT_NE(kernel, nullptr);
  int32_t n = 29;
  std::vector<uint16_t> x(n);
  for (int i = 0; i < n; ++i) x[i] = test_util::NearestHalf(0.1 * i - 1.3);
  std::vector<float> y(32, 99.0f);
  RunGrid(kernel, {x.data(), y.data(), &n}, (n + 7) / 8);
  for (int i = 0; i < n; ++i) EXPECT_EQ(y[i], test_util::HalfValue(x[i]) + 1.0f) << i;
  for (int i = n; i < 32; ++i) EXPECT_EQ(y[i], 99.0f);
}

TEST_F(KernelTest, GuardedVectorLoadsNeverTouchMemoryPastTheEnd) {
  BlockFn masked = Load("vector_access.tile", "masked_load");
  BlockFn gather = Load("vector_access.tile", "masked_gather");
  ASSERT_NE(masked, nullptr);
  ASSERT_NE(gather, nullptr);
  int32_t n = 29;
  GuardedBuffer tail(n * sizeof(float), GuardedBuffer::Side::kGuardEnd);
  GuardedBuffer head(n * sizeof(float), GuardedBuffer::Side::kGuardStart);
  auto* x_end = static_cast<float*>(tail.data());
  auto* x_start = static_cast<float*>(head.data());
  for (int i = 0; i < n; ++i) x_end[i] = x_start[i] = 0.5f * i;
  std::vector<float> y(32);
  RunGrid(masked, {x_end, y.data(), &n}, 4);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(y[i], i < n ? 2 * x_end[i] : -2.0f) << i;
  // Reversed indices run below 0 in the last block.
  RunGrid(gather, {x_start, y.data(), &n}, 8);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(y[i], i < n ? x_start[n - 1 - i] : 7.0f) << i;
  x_start[0] = -3.0f;  // now the second condition is false in every lane
  RunGrid(gather, {x_start, y.data(), &n}, 8);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(y[i], 7.0f) << i;
}

TEST_F(KernelTest, LoweredGemmWithSharedPoolAndLocalAccumulator) {
  BlockFn gemm = Load("gemm.tile", "gemm_f16");
  ASSERT_NE(gemm, nullptr);
  int32_t m = 37, n = 29, k = 45;
  std::vector<uint16_t> a(m * k), b(k * n);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (uint16_t& v : a) v = test_util::NearestHalf(dist(random_));
  for (uint16_t& v : b) v = test_util::NearestHalf(dist(random_));
  std::vector<float> c(m * n, std::numeric_limits<float>::quiet_NaN());
  RunGrid(gemm, {a.data(), b.data(), c.data(), &m, &n, &k}, (n + 15) / 16, (m + 15) / 16);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double expected = 0;
      for (int p = 0; p < k; ++p) {
        expected += double{test_util::HalfValue(a[i * k + p])} * test_util::HalfValue(b[p * n + j]);
      }
      EXPECT_NEAR(c[i * n + j], expected, 1e-4) << i << "," << j;
    }
  }
}

TEST_F(KernelTest, Reductions) {
  BlockFn softmax = Load("reduction.tile", "row_softmax");
  BlockFn row_sum = Load("reduction.tile", "row_sum");
  BlockFn col_max = Load("reduction.tile", "col_max_bf16");
  ASSERT_NE(softmax, nullptr);
  ASSERT_NE(row_sum, nullptr);
  ASSERT_NE(col_max, nullptr);

  int32_t m = 5;
  std::vector<float> x = RandomFloats(random_, m * 64, -8, 8), y(m * 64);
  RunGrid(softmax, {x.data(), y.data(), &m}, m);
  for (int r = 0; r < m; ++r) {
    double top = *std::max_element(x.begin() + r * 64, x.begin() + r * 64 + 64), sum = 0;
    for (int j = 0; j < 64; ++j) sum += std::exp(double{x[r * 64 + j]} - top);
    for (int j = 0; j < 64; ++j) {
      EXPECT_NEAR(y[r * 64 + j], std::exp(double{x[r * 64 + j]} - top) / sum, 1e-6);
    }
  }

  int32_t rows = 3, cols = 1000;
  std::vector<int32_t> values(rows * cols);
  for (int i = 0; i < rows * cols; ++i) values[i] = (i % 2 ? 1 : -1) * (2000000000 - i);
  std::vector<int64_t> sums(rows);
  RunGrid(row_sum, {values.data(), sums.data(), &rows, &cols}, rows);
  for (int r = 0; r < rows; ++r) {
    int64_t expected = 0;
    for (int j = 0; j < cols; ++j) expected += values[r * cols + j];
    EXPECT_EQ(sums[r], expected);
  }

  int32_t n = 7;
  std::vector<uint16_t> bf(32 * n), out(n);
  for (uint16_t& v : bf)
    v = test_util::NearestBf16(std::uniform_real_distribution<double>(-9, 9)(random_));
  RunGrid(col_max, {bf.data(), out.data(), &n}, n);
  for (int j = 0; j < n; ++j) {
    float best = -std::numeric_limits<float>::infinity();
    for (int i = 0; i < 32; ++i) best = std::max(best, 2 * test_util::Bf16Value(bf[i * n + j]));
    EXPECT_EQ(test_util::Bf16Value(out[j]), best) << j;
  }
}

TEST_F(KernelTest, SharedTileWithStridesAndPackedLocals) {
  BlockFn transpose = Load("shared_local.tile", "transpose");
  BlockFn nibbles = Load("shared_local.tile", "nibbles");
  ASSERT_NE(transpose, nullptr);
  ASSERT_NE(nibbles, nullptr);
  int32_t m = 13, n = 10;
  std::vector<float> x(m * n), y(n * m);
  for (int i = 0; i < m * n; ++i) x[i] = static_cast<float>(i);
  RunGrid(transpose, {x.data(), y.data(), &m, &n}, (n + 7) / 8, (m + 7) / 8);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) EXPECT_EQ(y[j * m + i], x[i * n + j]);
  }
  std::vector<int8_t> small = {-8, -1, 0, 7, 9, -9, 3, -4, 15, -16, 1, 2, -2, 5, -5, 6};
  std::vector<int32_t> unpacked(16);
  std::vector<uint8_t> flags(16, 7);
  RunGrid(nibbles, {small.data(), unpacked.data(), flags.data()}, 1);
  for (int j = 0; j < 16; ++j) {
    int wrapped = ((small[15 - j] + 8) & 15) - 8;  // i4 keeps the low four bits
    EXPECT_EQ(unpacked[j], wrapped) << j;
    EXPECT_EQ(flags[j], (small[j] < 0 || j == 0) ? 1 : 0) << j;
  }
}

}  // namespace
}  // namespace tile_ir::cpu
