// Pins the MFMA accumulator layout the compiler gives layout inference against
// the ISA's lane mapping of v_mfma_f32_32x32x8{f16,bf16_1k} issued with its
// operands swapped (CDNA2/CDNA3 ISA, AMD's matrix instruction calculator:
// D[x][y] is in lane y + 32 * ((x / 4) % 2), item 4 * (x / 8) + x % 4, and D
// = C^T, so C[i][j] is in lane i + 32 * ((j / 4) % 2), item 4 * (j / 8) + j %
// 4), and against the device library's own index helpers (device/gemm_mfma.h
// compiled as host C++).
#include "targets/hip/gemm_mfma.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "passes/analysis/fragment_threads.h"
#include "targets/hip/device/gemm_mfma.h"
#include "tile_ir/buffer.h"
#include "tile_ir/stmt.h"

namespace tile_ir::hip {
namespace {

// gemm A_s[M, K], B_s[K, N] -> C_l[M, N] with f16 operands in shared memory.
Stmt MakeGemm(int64_t m, int64_t n, int64_t k, DataType input = kF16,
              WarpPolicy policy = WarpPolicy::kSquare) {
  Buffer a = BufferNode::Make("A_s", input, {Int(m), Int(k)}, MemoryScope::kShared);
  Buffer b = BufferNode::Make("B_s", input, {Int(k), Int(n)}, MemoryScope::kShared);
  Buffer c = BufferNode::Make("C_l", kF32, {Int(m), Int(n)}, MemoryScope::kFragment);
  return Gemm::Make(Region::Full(a), Region::Full(b), Region::Full(c), false, false, policy, false);
}

// (thread, register) of element (i, j) under `layout`, evaluated.
std::pair<int64_t, int64_t> Place(const Layout& layout, int64_t i, int64_t j) {
  passes::IntEnv env = {{layout.inputs[0].get(), i}, {layout.inputs[1].get(), j}};
  std::optional<int64_t> thread = passes::EvaluateInt(layout.outputs[0], env);
  std::optional<int64_t> reg = passes::EvaluateInt(layout.outputs[1], env);
  EXPECT_TRUE(thread && reg) << "(" << i << ", " << j << ")";
  return {thread.value_or(-1), reg.value_or(-1)};
}

TEST(GemmMfmaTest, OneTilePerWaveIsTheIsaLaneMapping) {
  Stmt gemm = MakeGemm(32, 32, 16);
  std::optional<Layout> layout = MfmaAccumulatorLayout(*As<Gemm>(gemm), 64);
  ASSERT_TRUE(layout.has_value());
  for (int64_t i = 0; i < 32; ++i) {
    for (int64_t j = 0; j < 32; ++j) {
      auto [thread, reg] = Place(*layout, i, j);
      EXPECT_EQ(thread, i + 32 * ((j / 4) % 2)) << i << ", " << j;
      EXPECT_EQ(reg, 4 * (j / 8) + j % 4) << i << ", " << j;
    }
  }
}

TEST(GemmMfmaTest, WavesAndTilesComposeAndMatchTheDeviceLibrary) {
  // 128 x 128 on 4 waves (square: 2 x 2), each wave 64 x 64 = 2 x 2 tiles.
  Stmt gemm = MakeGemm(128, 128, 32);
  std::optional<Layout> layout = MfmaAccumulatorLayout(*As<Gemm>(gemm), 256);
  ASSERT_TRUE(layout.has_value());
  using Shape = tl::mfma::AccumulatorShape<128, 128, 2, 2>;
  std::set<std::pair<int64_t, int64_t>> seen;
  for (int64_t i = 0; i < 128; ++i) {
    for (int64_t j = 0; j < 128; ++j) {
      auto [thread, reg] = Place(*layout, i, j);
      ASSERT_LT(thread, 256);
      ASSERT_LT(reg, Shape::kRegisters);
      EXPECT_TRUE(seen.insert({thread, reg}).second) << "two elements at " << thread << ", " << reg;
      EXPECT_EQ(Shape::Row(static_cast<int>(thread), static_cast<int>(reg)), i);
      EXPECT_EQ(Shape::Col(static_cast<int>(thread), static_cast<int>(reg)), j);
      // Inside its 32x32 tile, the ISA's mapping.
      EXPECT_EQ(thread % 64, i % 32 + 32 * ((j % 32) / 4 % 2));
      EXPECT_EQ(reg % 16, 4 * ((j % 32) / 8) + j % 4);
    }
  }
}

TEST(GemmMfmaTest, OperandOffsetsFollowTheIsa) {
  // A (32x8): lane l, item v holds A[l % 32][4 * (l / 32) + v]; row-major [M][K].
  for (int lane = 0; lane < 64; ++lane) {
    for (int v = 0; v < 4; ++v) {
      EXPECT_EQ((tl::mfma::AOffset<32, 8, false>(lane, 0, 0, v)),
                (lane % 32) * 8 + 4 * (lane / 32) + v);
      EXPECT_EQ((tl::mfma::BOffset<32, 8, false>(lane, 0, 0, v)),
                (4 * (lane / 32) + v) * 32 + lane % 32);
    }
  }
}

TEST(GemmMfmaTest, ShapesMfmaCannotTakeFallBack) {
  EXPECT_FALSE(MfmaAccumulatorLayout(*As<Gemm>(MakeGemm(16, 16, 16)), 64).has_value());  // < 32
  EXPECT_FALSE(MfmaAccumulatorLayout(*As<Gemm>(MakeGemm(32, 32, 12)), 64).has_value());  // K % 8
  EXPECT_FALSE(MfmaAccumulatorLayout(*As<Gemm>(MakeGemm(64, 64, 16)), 32).has_value());  // < wave
  EXPECT_FALSE(
      MfmaAccumulatorLayout(*As<Gemm>(MakeGemm(64, 64, 16, kF32)), 64).has_value());  // f32 in
  EXPECT_TRUE(MfmaAccumulatorLayout(*As<Gemm>(MakeGemm(64, 64, 16, kBF16)), 128).has_value());
}

// gemm A_l, B_s -> C_l with A_l a 16-bit fragment [M, K] ([K, M] transposed).
Stmt RegisterAGemm(int64_t m, int64_t n, int64_t k, WarpPolicy policy, bool trans_a = false) {
  Buffer a = BufferNode::Make("A_l", kF16, {Int(trans_a ? k : m), Int(trans_a ? m : k)},
                              MemoryScope::kFragment);
  Buffer b = BufferNode::Make("B_s", kF16, {Int(k), Int(n)}, MemoryScope::kShared);
  Buffer c = BufferNode::Make("C_l", kF32, {Int(m), Int(n)}, MemoryScope::kFragment);
  return Gemm::Make(Region::Full(a), Region::Full(b), Region::Full(c), trans_a, false, policy,
                    false);
}

TEST(GemmMfmaTest, RegisterAIsTheAccumulatorLayoutWhereWavesSplitMOnly) {
  // 64 x 64 on 2 waves along M: A's items 4s..4s+3 of a tile are k-step s's operand items.
  std::optional<Layout> a =
      MfmaRegisterALayout(*As<Gemm>(RegisterAGemm(64, 64, 64, WarpPolicy::kFullRow)), 128);
  ASSERT_TRUE(a.has_value());
  for (int64_t i = 0; i < 64; ++i) {
    for (int64_t k = 0; k < 64; ++k) {
      auto [thread, reg] = Place(*a, i, k);
      // ISA SRC operand of the row side: lane i % 32 + 32 * ((k / 4) % 2), item k % 4 of step
      // (k % 32) / 8 of tile k / 32.
      EXPECT_EQ(thread, (i / 32) * 64 + i % 32 + 32 * ((k / 4) % 2)) << i << ", " << k;
      EXPECT_EQ(reg, (k / 32) * 16 + 4 * ((k % 32) / 8) + k % 4) << i << ", " << k;
    }
  }
  // The accumulator layout stays, whether or not A can be read from registers.
  for (const Stmt& staged : {RegisterAGemm(64, 128, 64, WarpPolicy::kSquare),        // 1 x 2 waves
                             RegisterAGemm(64, 64, 64, WarpPolicy::kFullRow, true),  // transposed
                             RegisterAGemm(64, 64, 48, WarpPolicy::kFullRow)}) {     // K % 32
    EXPECT_FALSE(MfmaRegisterALayout(*As<Gemm>(staged), 128).has_value());
    EXPECT_TRUE(MfmaAccumulatorLayout(*As<Gemm>(staged), 128).has_value());
  }
}

}  // namespace
}  // namespace tile_ir::hip
