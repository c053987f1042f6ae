#include "targets/cuda/gemm_mma.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "passes/analysis/fragment_layout.h"
#include "passes/analysis/fragment_threads.h"
#include "targets/cuda/gemm_mma_cuh_host.h"
#include "targets/cuda/gemm_mma_testing.h"
#include "tile_ir/module.h"
#include "tile_ir/printer.h"

namespace tile_ir::cuda {
namespace {

using testing::GemmSpec;
using testing::MakeGemm;

using testing::At;
using testing::KernelWith;
using testing::Place;

// The gemm_ss call for `spec` on `threads` threads, its accumulator laid out for mma.
std::optional<Stmt> Lowered(const GemmSpec& spec, int64_t threads) {
  std::optional<Layout> layout = MmaAccumulatorLayout(*As<Gemm>(MakeGemm(spec)), threads);
  if (!layout) return std::nullopt;
  Stmt gemm = MakeGemm(spec, passes::SimplifyLayout(*layout, {Int(spec.m), Int(spec.n)}));
  Kernel kernel = KernelWith(gemm, threads);
  absl::StatusOr<std::optional<Stmt>> call = LowerGemmToMma({As<Gemm>(gemm), kernel.get()});
  EXPECT_TRUE(call.ok()) << call.status();
  return call.ok() ? *call : std::nullopt;
}

// The integer arguments of a gemm_ss call: M, N, K, WARPS_M, WARPS_N, TRANS_A, TRANS_B, CLEAR,
// LDA, LDB.
std::vector<int64_t> TemplateArgs(const Stmt& call_stmt) {
  const Call* call = As<Call>(As<Evaluate>(call_stmt)->value);
  std::vector<int64_t> args;
  for (size_t i = 3; i < call->args.size(); ++i) args.push_back(*AsConstInt(call->args[i]));
  return args;
}

TEST(MmaAccumulatorLayoutTest, OneWarpTileIsThePtxAccumulatorFragment) {
  // PTX ISA, mma.m16n8k16 accumulators: c_q of lane l is row l / 4 (+ 8 for q >= 2), column
  // (l % 4) * 2 + (q & 1).
  GemmSpec spec{.m = 16, .n = 8, .k = 16};
  std::optional<Layout> layout = MmaAccumulatorLayout(*As<Gemm>(MakeGemm(spec)), 32);
  ASSERT_TRUE(layout);
  for (int lane = 0; lane < 32; ++lane) {
    for (int q = 0; q < 4; ++q) {
      Place place = At(*layout, lane / 4 + (q >= 2 ? 8 : 0), (lane % 4) * 2 + (q & 1));
      EXPECT_EQ(place.thread, lane) << "c" << q << " of lane " << lane;
      EXPECT_EQ(place.reg, q) << "c" << q << " of lane " << lane;
    }
  }
}

// Every (i, j) of an M x N accumulator on `threads` threads has its own (thread, register),
// registers [0, M * N / threads) on every thread, and is where the device library's
// gemm_ss keeps it; the lowering splits the warps WARPS_M x WARPS_N.
template <int M, int N, int WARPS_M, int WARPS_N>
void ExpectDeviceLayout(WarpPolicy policy) {
  constexpr int kThreads = WARPS_M * WARPS_N * 32;
  using Shape = tl::mma::AccumulatorShape<M, N, WARPS_M, WARPS_N>;
  SCOPED_TRACE(::testing::Message() << M << "x" << N << " on " << WARPS_M << "x" << WARPS_N
                                    << " warps, policy " << WarpPolicyName(policy));
  GemmSpec spec{.m = M, .n = N, .k = 32, .policy = policy};
  std::optional<Layout> layout = MmaAccumulatorLayout(*As<Gemm>(MakeGemm(spec)), kThreads);
  ASSERT_TRUE(layout);
  std::optional<Stmt> call = Lowered(spec, kThreads);
  ASSERT_TRUE(call);
  EXPECT_EQ(TemplateArgs(*call), (std::vector<int64_t>{M, N, 32, WARPS_M, WARPS_N, 0, 0, 0, 32, N}));
  constexpr int kRegisters = M * N / kThreads;
  ASSERT_EQ(Shape::kRegisters, kRegisters);
  std::vector<int> hits(kThreads * kRegisters, 0);
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      Place place = At(*layout, i, j);
      ASSERT_TRUE(place.thread >= 0 && place.thread < kThreads && place.reg >= 0 &&
                  place.reg < kRegisters)
          << "(" << i << ", " << j << ") -> (" << place.thread << ", " << place.reg << ")";
      ++hits[place.thread * kRegisters + place.reg];
      int thread = static_cast<int>(place.thread);
      int reg = static_cast<int>(place.reg);
      ASSERT_EQ(Shape::Row(thread, reg), i) << "thread " << thread << ", register " << reg;
      ASSERT_EQ(Shape::Col(thread, reg), j) << "thread " << thread << ", register " << reg;
    }
  }
  for (int hit : hits) ASSERT_EQ(hit, 1);
}

TEST(MmaAccumulatorLayoutTest, EveryElementIsWhereGemmSsKeepsIt) {
  ExpectDeviceLayout<128, 128, 2, 2>(WarpPolicy::kSquare);
  ExpectDeviceLayout<64, 64, 2, 2>(WarpPolicy::kSquare);
  ExpectDeviceLayout<64, 64, 4, 1>(WarpPolicy::kFullRow);
  ExpectDeviceLayout<64, 64, 1, 4>(WarpPolicy::kFullCol);
  // 8 warps: 2 x 4 gives 64 x 64 warp tiles, the squarest.
  ExpectDeviceLayout<128, 256, 2, 4>(WarpPolicy::kSquare);
  // 2 warps: 32 x 24 warp tiles (three n8 tiles, an odd one) beat 16 x 48.
  ExpectDeviceLayout<32, 48, 1, 2>(WarpPolicy::kSquare);
  ExpectDeviceLayout<16, 8, 1, 1>(WarpPolicy::kSquare);
}

TEST(MmaAccumulatorLayoutTest, DeclinesWhatMmaCannotRun) {
  auto fits = [](const GemmSpec& spec, int64_t threads) {
    return MmaAccumulatorLayout(*As<Gemm>(MakeGemm(spec)), threads).has_value();
  };
  EXPECT_TRUE(fits(GemmSpec{}, 128));
  EXPECT_TRUE(fits(GemmSpec{.input = kBF16, .trans_a = true, .trans_b = true}, 128));
  EXPECT_FALSE(fits(GemmSpec{.input = kF32}, 128)) << "f32 inputs take the FMA path";
  EXPECT_FALSE(fits(GemmSpec{.input = kF8E4M3}, 128));
  EXPECT_FALSE(fits(GemmSpec{.k = 24}, 128)) << "K must be a multiple of 16";
  EXPECT_FALSE(fits(GemmSpec{}, 100)) << "whole warps only";
  EXPECT_FALSE(fits(GemmSpec{}, 96)) << "3 warps split neither 128 rows nor 128 columns";
  EXPECT_FALSE(fits(GemmSpec{.policy = WarpPolicy::kFullRow}, 512))
      << "16 warps along 128 rows leave 8 rows each";
  EXPECT_FALSE(fits(GemmSpec{.m = 8, .n = 8, .k = 16}, 32));
}

TEST(MmaAccumulatorLayoutTest, DeclinesOperandsItCannotAddress) {
  auto fits = [](Region a, Region b, Region c) {
    Stmt gemm = Gemm::Make(std::move(a), std::move(b), std::move(c));
    return MmaAccumulatorLayout(*As<Gemm>(gemm), 128).has_value();
  };
  auto buffer = [](const char* name, DataType dtype, int64_t rows, int64_t cols, MemoryScope scope,
                   std::optional<Layout> layout = std::nullopt) {
    return BufferNode::Make(name, dtype, {Int(rows), Int(cols)}, scope, {}, std::move(layout));
  };
  Buffer a = buffer("A_s", kF16, 128, 32, MemoryScope::kShared);
  Buffer b = buffer("B_s", kF16, 32, 128, MemoryScope::kShared);
  Buffer c = buffer("C_l", kF32, 128, 128, MemoryScope::kFragment);
  EXPECT_TRUE(fits(Region::Full(a), Region::Full(b), Region::Full(c)));

  Buffer wide = buffer("A_s", kF16, 128, 64, MemoryScope::kShared);
  EXPECT_FALSE(
      fits(Region{wide, {{Int(0), Int(128)}, {Int(0), Int(32)}}}, Region::Full(b), Region::Full(c)))
      << "rows of A 64 elements apart, not 32";
  Layout swizzle;
  swizzle.inputs = {Var::Make("i"), Var::Make("j")};
  swizzle.outputs = {
      swizzle.inputs[0],
      Binary::Make(BinaryOp::kFloorMod,
                   Binary::Make(BinaryOp::kAdd, swizzle.inputs[1], swizzle.inputs[0]), Int(32))};
  EXPECT_FALSE(fits(Region::Full(buffer("A_s", kF16, 128, 32, MemoryScope::kShared, swizzle)),
                    Region::Full(b), Region::Full(c)));
  EXPECT_TRUE(fits(Region::Full(buffer("A_l", kF16, 128, 32, MemoryScope::kFragment)),
                   Region::Full(b), Region::Full(c)))
      << "a fragment A is read from registers or staged, the accumulator alike";
  EXPECT_FALSE(fits(Region::Full(a),
                    Region::Full(buffer("B_l", kF16, 32, 128, MemoryScope::kFragment)),
                    Region::Full(c)))
      << "a fragment B is staged by the generic FMA path";
  EXPECT_FALSE(fits(Region::Full(a),
                    Region::Full(buffer("B_s", kBF16, 32, 128, MemoryScope::kShared)),
                    Region::Full(c)))
      << "mixed f16 and bf16";
  EXPECT_FALSE(fits(Region::Full(a), Region::Full(b),
                    Region::Full(buffer("C_l", kF16, 128, 128, MemoryScope::kFragment))))
      << "f16 accumulators";
  EXPECT_FALSE(fits(Region::Full(a), Region::Full(b),
                    Region::Full(buffer("C_l", kF32, 128, 128, MemoryScope::kLocal))));
}

TEST(LowerGemmToMmaTest, CallsGemmSsAtTheOperandsFirstElements) {
  // A staged A_s[3, 128, 32] used at slot k % 3, as inject-software-pipeline leaves it.
  VarRef k = Var::Make("k");
  Buffer a = BufferNode::Make("A_s", kF16, {Int(3), Int(128), Int(32)}, MemoryScope::kShared);
  Buffer b = BufferNode::Make("B_s", kF16, {Int(128), Int(32)}, MemoryScope::kShared);
  Region a_slot{a,
                {{Binary::Make(BinaryOp::kFloorMod, k, Int(3)), Int(1)},
                 {Int(0), Int(128)},
                 {Int(0), Int(32)}}};
  GemmSpec spec{.trans_b = true, .clear = true};
  std::optional<Layout> layout = MmaAccumulatorLayout(*As<Gemm>(MakeGemm(spec)), 128);
  ASSERT_TRUE(layout);
  Buffer c = BufferNode::Make("C_l", kF32, {Int(128), Int(128)}, MemoryScope::kFragment, {},
                              passes::SimplifyLayout(*layout, {Int(128), Int(128)}));
  Stmt gemm =
      Gemm::Make(a_slot, Region::Full(b), Region::Full(c), false, true, WarpPolicy::kSquare, true);
  Kernel kernel = KernelWith(gemm, 128);
  absl::StatusOr<std::optional<Stmt>> call = LowerGemmToMma({As<Gemm>(gemm), kernel.get()});
  ASSERT_TRUE(call.ok()) << call.status();
  ASSERT_TRUE(*call);
  EXPECT_EQ(
      Print(**call),
      "eval cuda.gemm_ss(A_s[floormod(k, 3), 0, 0], B_s[0, 0], C_l[0, 0], 128, 128, 32, 2, 2, "
      "false, true, true, 32, 32);\n");
}

TEST(LowerGemmToMmaTest, DeclinesAnAccumulatorLaidOutOtherwise) {
  GemmSpec spec;
  Stmt gemm = MakeGemm(spec, passes::CyclicLayout({Int(128), Int(128)}, 128));
  Kernel kernel = KernelWith(gemm, 128);
  absl::StatusOr<std::optional<Stmt>> call = LowerGemmToMma({As<Gemm>(gemm), kernel.get()});
  ASSERT_TRUE(call.ok()) << call.status();
  EXPECT_FALSE(*call);
  EXPECT_TRUE(Lowered(spec, 128));
}

// `gemm A_l, B_s -> C_l` with A_l a 16-bit fragment [M, K] ([K, M] transposed) with `a_layout`,
// B_s a dense shared [K, N] tile and C_l an f32 fragment [M, N] with `c_layout`.
Stmt RegisterAGemm(int64_t m, int64_t n, int64_t k, WarpPolicy policy, bool trans_a = false,
                   std::optional<Layout> a_layout = std::nullopt,
                   std::optional<Layout> c_layout = std::nullopt) {
  Buffer a = BufferNode::Make("A_l", kF16, {Int(trans_a ? k : m), Int(trans_a ? m : k)},
                              MemoryScope::kFragment, {}, std::move(a_layout));
  Buffer b = BufferNode::Make("B_s", kF16, {Int(k), Int(n)}, MemoryScope::kShared);
  Buffer c = BufferNode::Make("C_l", kF32, {Int(m), Int(n)}, MemoryScope::kFragment, {},
                              std::move(c_layout));
  return Gemm::Make(Region::Full(a), Region::Full(b), Region::Full(c), trans_a, false, policy,
                    false);
}

TEST(MmaRegisterALayoutTest, IsTheAccumulatorLayoutOfAnMByKTileOnTheSameWarps) {
  Stmt gemm = RegisterAGemm(64, 128, 64, WarpPolicy::kFullRow);
  std::optional<Layout> a = MmaRegisterALayout(*As<Gemm>(gemm), 128);
  ASSERT_TRUE(a);
  // PTX ISA, mma.m16n8k16 A fragment: lane 5 of warp 1 holds rows 16 + 1 and 16 + 9 at columns
  // 2, 3, 10, 11 of each k16 step, a0..a7 in registers 0..7 of the step.
  EXPECT_EQ(At(*a, 17, 2).thread, 32 + 5);
  EXPECT_EQ(At(*a, 17, 2).reg, 0);
  EXPECT_EQ(At(*a, 17, 3).reg, 1);
  EXPECT_EQ(At(*a, 25, 2).reg, 2);
  EXPECT_EQ(At(*a, 17, 10).reg, 4);
  EXPECT_EQ(At(*a, 25, 11).reg, 7);
  EXPECT_EQ(At(*a, 17, 18).reg, 8) << "the next k16 step follows";
  // An accumulator of 64 x 64 on the same 4 warps is laid out alike, so a cast of it is the
  // operand as it stands.
  std::optional<Layout> accumulator = MmaAccumulatorLayout(
      *As<Gemm>(MakeGemm({.m = 64, .n = 64, .k = 32, .policy = WarpPolicy::kFullRow})), 128);
  ASSERT_TRUE(accumulator);
  for (int64_t i = 0; i < 64; ++i) {
    for (int64_t j = 0; j < 64; ++j) {
      ASSERT_EQ(At(*a, i, j).thread, At(*accumulator, i, j).thread) << i << ", " << j;
      ASSERT_EQ(At(*a, i, j).reg, At(*accumulator, i, j).reg) << i << ", " << j;
    }
  }
}

TEST(MmaRegisterALayoutTest, NoneWhereWarpsSplitNOrATransposed) {
  // 4 warps, square: 2 x 2 warps, each warp's rows of A would be needed by two warps.
  Stmt square = RegisterAGemm(64, 64, 64, WarpPolicy::kSquare);
  EXPECT_FALSE(MmaRegisterALayout(*As<Gemm>(square), 128));
  EXPECT_TRUE(MmaAccumulatorLayout(*As<Gemm>(square), 128)) << "staged, still on mma.sync";
  Stmt transposed = RegisterAGemm(64, 64, 64, WarpPolicy::kFullRow, /*trans_a=*/true);
  EXPECT_FALSE(MmaRegisterALayout(*As<Gemm>(transposed), 128));
  EXPECT_TRUE(MmaAccumulatorLayout(*As<Gemm>(transposed), 128));
  // 2 warps on 32 x 32, square: 2 x 1 (16 x 32 tiles) ties 1 x 2; more warps along M wins.
  EXPECT_TRUE(MmaRegisterALayout(*As<Gemm>(RegisterAGemm(32, 32, 64, WarpPolicy::kSquare)), 64));
}

TEST(LowerGemmToMmaTest, ReadsARegisterAInItsLayoutAndDeclinesOthers) {
  Stmt bare = RegisterAGemm(64, 128, 64, WarpPolicy::kFullRow);
  std::optional<Layout> a = MmaRegisterALayout(*As<Gemm>(bare), 128);
  std::optional<Layout> c = MmaAccumulatorLayout(*As<Gemm>(bare), 128);
  ASSERT_TRUE(a && c);
  Stmt gemm = RegisterAGemm(64, 128, 64, WarpPolicy::kFullRow, false, a, c);
  Kernel kernel = KernelWith(gemm, 128);
  absl::StatusOr<std::optional<Stmt>> call = LowerGemmToMma({As<Gemm>(gemm), kernel.get()});
  ASSERT_TRUE(call.ok() && *call) << call.status();
  EXPECT_EQ(Print(**call),
            "eval cuda.gemm_rs(A_l[0, 0], B_s[0, 0], C_l[0, 0], 64, 128, 64, 4, 1, false, false, "
            "false, 128);\n");

  // A laid out cyclically is not the operand: declined, and the generic lowering stages it.
  Stmt cyclic = RegisterAGemm(64, 128, 64, WarpPolicy::kFullRow, false,
                              passes::CyclicLayout({Int(64), Int(64)}, 128), c);
  Kernel cyclic_kernel = KernelWith(cyclic, 128);
  absl::StatusOr<std::optional<Stmt>> declined =
      LowerGemmToMma({As<Gemm>(cyclic), cyclic_kernel.get()});
  ASSERT_TRUE(declined.ok()) << declined.status();
  EXPECT_FALSE(*declined);
}

}  // namespace
}  // namespace tile_ir::cuda
