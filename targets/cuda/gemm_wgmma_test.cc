#include "targets/cuda/gemm_wgmma.h"

#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "targets/cuda/passes/core_matrix_tiles.h"
#include "passes/analysis/fragment_layout.h"
#include "passes/analysis/fragment_threads.h"
#include "targets/cuda/cuda_target_info.h"
#include "targets/cuda/gemm_mma_testing.h"
#include "targets/cuda/gemm_wgmma_cuh_host.h"
#include "tile_ir/module.h"

namespace tile_ir::cuda {
namespace {

using testing::GemmSpec;
using testing::MakeGemm;

using testing::At;
using testing::KernelWith;
using testing::Place;

std::optional<WgmmaPlan> Plan(const GemmSpec& spec, int64_t threads) {
  return PlanWgmma(*As<Gemm>(MakeGemm(spec)), threads);
}

TEST(PlanWgmmaTest, SplitsWarpgroupsByPolicy) {
  std::optional<WgmmaPlan> one = Plan({.input = kBF16}, 128);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->warpgroups_m, 1);
  EXPECT_EQ(one->warpgroups_n, 1);
  EXPECT_EQ(one->k, 32);
  // 128 x 256 on two warpgroups: square gives each 128 x 128, full_row each 64 x 256.
  std::optional<WgmmaPlan> square = Plan({.m = 128, .n = 256, .k = 64}, 256);
  ASSERT_TRUE(square);
  EXPECT_EQ(square->warpgroups_m, 1);
  EXPECT_EQ(square->warpgroups_n, 2);
  std::optional<WgmmaPlan> rows =
      Plan({.m = 128, .n = 256, .k = 64, .policy = WarpPolicy::kFullRow}, 256);
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->warpgroups_m, 2);
  EXPECT_EQ(rows->warpgroups_n, 1);
  // Transposed operands and padded rows plan the same.
  EXPECT_TRUE(Plan({.trans_a = true, .trans_b = true, .pad_a = 8, .pad_b = 8}, 128));
}

TEST(PlanWgmmaTest, RefusesWhatWgmmaCannotRun) {
  EXPECT_FALSE(Plan({}, 64)) << "fewer threads than a warpgroup";
  EXPECT_FALSE(Plan({}, 96)) << "not whole warpgroups";
  EXPECT_FALSE(Plan({.k = 24}, 128)) << "K not a multiple of 16";
  EXPECT_FALSE(Plan({.input = kF32}, 128)) << "f32 inputs";
  EXPECT_FALSE(Plan({.m = 32, .n = 64}, 128)) << "M below one m64 tile";
  EXPECT_FALSE(Plan({.m = 64, .n = 512}, 128)) << "N above 256 on one warpgroup";
  EXPECT_FALSE(Plan({.m = 64, .n = 40}, 128)) << "a width without a wrapper";
  EXPECT_FALSE(Plan({.m = 64, .n = 64, .policy = WarpPolicy::kFullRow}, 256))
      << "two warpgroups along 64 rows";
}

TEST(WgmmaAccumulatorLayoutTest, OneWarpgroupTileIsThePtxAccumulatorFragment) {
  // PTX ISA, wgmma .m64nNk16 accumulator D (f32): thread t of the warpgroup, warp w = t / 32,
  // lane l: d[r] is row 16 w + l / 4 + 8 * ((r / 2) % 2), column 8 * (r / 4) + 2 * (l % 4) +
  // r % 2.
  for (int64_t n : {8, 64, 256}) {
    WgmmaPlan plan{.m = 64, .n = n, .k = 16, .warpgroups_m = 1, .warpgroups_n = 1};
    Layout layout = WgmmaAccumulatorLayout(plan);
    for (int t = 0; t < 128; ++t) {
      for (int r = 0; r < n / 2; ++r) {
        int64_t row = 16 * (t / 32) + (t % 32) / 4 + 8 * ((r / 2) % 2);
        int64_t col = 8 * (r / 4) + 2 * (t % 4) + r % 2;
        Place place = At(layout, row, col);
        EXPECT_EQ(place.thread, t) << "n" << n << " d" << r << " of thread " << t;
        EXPECT_EQ(place.reg, r) << "n" << n << " d" << r << " of thread " << t;
      }
    }
  }
}

TEST(WgmmaAccumulatorLayoutTest, WarpgroupsAndM64TilesFollowTheDeviceLoop) {
  // 256 x 128 on 2 x 2 warpgroups: each holds 128 x 64 as two m64n64 tiles, registers
  // 0..31 the first, 32..63 the second; every (thread, register) holds one element.
  WgmmaPlan plan{.m = 256, .n = 128, .k = 16, .warpgroups_m = 2, .warpgroups_n = 2};
  Layout layout = WgmmaAccumulatorLayout(plan);
  std::set<Place> seen;
  for (int64_t i = 0; i < 256; ++i) {
    for (int64_t j = 0; j < 128; ++j) {
      Place place = At(layout, i, j);
      int64_t group = (i / 128) * 2 + j / 64;
      int64_t tile = (i % 128) / 64;
      EXPECT_EQ(place.thread / 128, group) << i << ", " << j;
      EXPECT_EQ(place.reg / 32, tile) << i << ", " << j;
      EXPECT_LT(place.reg, 64);
      seen.insert(place);
    }
  }
  EXPECT_EQ(seen.size(), 256u * 128u);
}

// The canonical layouts of the PTX ISA (9.7.15.5.1.2), in bytes from the descriptor's start,
// T = 8 elements of 2 bytes. Unswizzled: K-major ((8,m),(T,2k)):((1T,SBO),(1,LBO)), MN-major
// ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO)). 128-byte swizzle (start 1024-byte aligned up to the
// bits the swizzle leaves alone): K-major ((8,m),(T,2k)):((8T,SBO),(1,T)), MN-major
// ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO)), then address bits 4-6 XOR bits 7-9.
int64_t CanonicalByte(bool k_major, bool swizzled, int64_t start, int mn, int k, int lbo,
                      int sbo) {
  if (!swizzled) {
    if (k_major) return start + (mn % 8) * 16 + (mn / 8) * sbo + (k % 8) * 2 + (k / 8) * lbo;
    return start + (mn % 8) * 2 + (mn / 8) * sbo + (k % 8) * 16 + (k / 8) * lbo;
  }
  int64_t address = k_major ? start + (mn % 8) * 128 + (mn / 8) * sbo + k * 2
                            : start + (mn % 64) * 2 + (mn / 64) * lbo + (k % 8) * 128 +
                                  (k / 8) * sbo;
  return address ^ (((address >> 7) & 7) << 4);
}

// Where core-matrix-tiles stores element (row, col) of an R x C tile of 2-byte elements, in
// bytes: 128-byte swizzled [C / 64][R][64] when C % 64 == 0, else [C / 8][R][8] with chunk
// columns ChunkColumnStrideBytes apart.
int64_t PassOffset(int rows, int cols, int row, int col) {
  if (passes::SwizzledCoreMatrixTile(cols * 2)) {
    return 2 * ((col / 64) * rows * 64 + row * 64 + (((col % 64) / 8) ^ (row % 8)) * 8 + col % 8);
  }
  return 2 * ((col / 8) * passes::ChunkColumnStrideBytes(rows, cols * 2) / 2 + row * 8 + col % 8);
}

template <int M, int N, int K, bool TRANS_A, bool TRANS_B>
void ExpectDescriptorsReadThePassLayout() {
  using Ops = tl::wgmma::Operands<M, N, K, TRANS_A, TRANS_B>;
  EXPECT_EQ(Ops::A::kSwizzled, passes::SwizzledCoreMatrixTile((TRANS_A ? M : K) * 2));
  EXPECT_EQ(Ops::B::kSwizzled, passes::SwizzledCoreMatrixTile((TRANS_B ? K : N) * 2));
  // Every instruction's A tile (64 x 16 at (m0, k0)) and B tile (N x 16 at (0, k0)).
  for (int m0 = 0; m0 < M; m0 += 64) {
    for (int k0 = 0; k0 < K; k0 += 16) {
      for (int m = 0; m < 64; ++m) {
        for (int k = 0; k < 16; ++k) {
          int row = TRANS_A ? k0 + k : m0 + m;
          int col = TRANS_A ? m0 + m : k0 + k;
          int64_t want = PassOffset(TRANS_A ? K : M, TRANS_A ? M : K, row, col);
          ASSERT_EQ(2 * Ops::A::Offset(row, col), want) << "stored A(" << row << ", " << col << ")";
          int64_t got = CanonicalByte(!TRANS_A, Ops::A::kSwizzled, 2 * Ops::A::Start(m0, k0), m,
                                      k, Ops::A::kLeadingBytes, Ops::A::kStrideBytes);
          ASSERT_EQ(got, want) << "A(" << m0 + m << ", " << k0 + k << ")";
        }
      }
    }
  }
  for (int k0 = 0; k0 < K; k0 += 16) {
    for (int n = 0; n < N; ++n) {
      for (int k = 0; k < 16; ++k) {
        int row = TRANS_B ? n : k0 + k;
        int col = TRANS_B ? k0 + k : n;
        int64_t want = PassOffset(TRANS_B ? N : K, TRANS_B ? K : N, row, col);
        ASSERT_EQ(2 * Ops::B::Offset(row, col), want) << "stored B(" << row << ", " << col << ")";
        int64_t got = CanonicalByte(TRANS_B, Ops::B::kSwizzled, 2 * Ops::B::Start(0, k0), n, k,
                                    Ops::B::kLeadingBytes, Ops::B::kStrideBytes);
        ASSERT_EQ(got, want) << "B(" << k0 + k << ", " << n << ")";
      }
    }
  }
}

TEST(WgmmaOperandTest, DescriptorsReadWhereCoreMatrixTilesStores) {
  // Interleaved (rows under 128 bytes or not a multiple of them).
  ExpectDescriptorsReadThePassLayout<128, 128, 32, false, false>();  // B swizzled, A not
  ExpectDescriptorsReadThePassLayout<128, 128, 32, false, true>();
  ExpectDescriptorsReadThePassLayout<128, 128, 32, true, false>();
  ExpectDescriptorsReadThePassLayout<64, 16, 16, false, true>();
  ExpectDescriptorsReadThePassLayout<64, 8, 16, true, false>();
  ExpectDescriptorsReadThePassLayout<128, 96, 32, false, false>();
  // 128-byte swizzled: K-major and MN-major, one and several atom columns.
  ExpectDescriptorsReadThePassLayout<64, 64, 64, true, true>();
  ExpectDescriptorsReadThePassLayout<128, 256, 64, false, false>();
  ExpectDescriptorsReadThePassLayout<128, 128, 128, false, true>();
  ExpectDescriptorsReadThePassLayout<256, 128, 64, true, false>();
}

TEST(WgmmaOperandTest, DescriptorFields) {
  // Start address 0x1230 >> 4, LBO 2048 >> 4 in bits 16-29, SBO 128 >> 4 in bits 32-45, no
  // swizzle.
  EXPECT_EQ(tl::wgmma::Descriptor(0x1230, 2048, 128), 0x123ull | (128ull << 16) | (8ull << 32));
  // 128-byte swizzle: layout type 1 in bits 62-63.
  EXPECT_EQ(tl::wgmma::Descriptor(0x1400, 16, 1024, 1),
            0x140ull | (1ull << 16) | (64ull << 32) | (1ull << 62));
}

GemmSpec Bf16Gemm() { return {.input = kBF16}; }

// A kernel of 128 threads around `body`.
Kernel InKernel(Stmt body) { return KernelWith(std::move(body), 128); }

TEST(CudaTargetWgmmaTest, TheWgmmaTargetLaysOutAndLowersOnWgmmaOthersOnMma) {
  Stmt gemm = MakeGemm(Bf16Gemm());
  CudaTargetInfo hopper("sm_90a", WgmmaUse::kWherePossible);
  CudaTargetInfo ampere("sm_80", WgmmaUse::kWherePossible);
  CudaTargetInfo hopper_mma("sm_90a", WgmmaUse::kNever);
  Kernel alone = InKernel(gemm);
  std::optional<Layout> hopper_layout = hopper.FragmentLayoutForGemm(*As<Gemm>(gemm), *alone);
  ASSERT_TRUE(hopper_layout);
  std::optional<WgmmaPlan> plan = hopper.WgmmaPlanFor(*As<Gemm>(gemm), *alone);
  ASSERT_TRUE(plan);
  // Thread 0, register 2 holds (8, 0) on wgmma; on mma.sync (2 x 2 warps) (8, 0) is there too,
  // but (0, 64) is thread 0's register 32 on wgmma and warp 1's on mma.sync.
  EXPECT_EQ(At(*hopper_layout, 0, 64).thread, 0);
  EXPECT_EQ(At(*hopper_layout, 0, 64).reg, 32);
  EXPECT_FALSE(ampere.WgmmaPlanFor(*As<Gemm>(gemm), *alone));
  EXPECT_FALSE(hopper_mma.WgmmaPlanFor(*As<Gemm>(gemm), *alone));
  EXPECT_EQ(At(*ampere.FragmentLayoutForGemm(*As<Gemm>(gemm), *alone), 0, 64).thread, 32);

  Stmt laid_out =
      MakeGemm(Bf16Gemm(), passes::SimplifyLayout(*hopper_layout, {Int(128), Int(128)}));
  Kernel kernel = InKernel(laid_out);
  absl::StatusOr<std::optional<Stmt>> call = hopper.LowerGemm({As<Gemm>(laid_out), kernel.get()});
  ASSERT_TRUE(call.ok()) << call.status();
  ASSERT_TRUE(*call);
  const Call* wgmma = As<Call>(As<Evaluate>(**call)->value);
  EXPECT_EQ(wgmma->name, kGemmWgmmaIntrinsic);
  std::vector<int64_t> template_args;
  for (size_t i = 3; i < wgmma->args.size(); ++i) {
    template_args.push_back(*AsConstInt(wgmma->args[i]));
  }
  EXPECT_EQ(template_args, (std::vector<int64_t>{128, 128, 32, 1, 1, 0, 0, 0}));
}

TEST(CudaTargetWgmmaTest, TheDefaultTakesWgmmaOnlyWithSwizzledOperands) {
  CudaTargetInfo hopper("sm_90a");
  // 128 x 128 x 32: A's rows are 64 bytes, interleaved, so mma.sync; 128 x 128 x 64: both
  // operands' rows are 128 bytes or more, swizzled, so wgmma.
  std::optional<WgmmaPlan> narrow_k = PlanWgmma(*As<Gemm>(MakeGemm(Bf16Gemm())), 128);
  ASSERT_TRUE(narrow_k);
  EXPECT_FALSE(narrow_k->operands_swizzled);
  Stmt narrow = MakeGemm(Bf16Gemm());
  EXPECT_FALSE(hopper.WgmmaPlanFor(*As<Gemm>(narrow), *InKernel(narrow)));
  Stmt wide_k = MakeGemm({.input = kBF16, .k = 64});
  std::optional<WgmmaPlan> plan = hopper.WgmmaPlanFor(*As<Gemm>(wide_k), *InKernel(wide_k));
  ASSERT_TRUE(plan);
  EXPECT_TRUE(plan->operands_swizzled);
  // Transposed B ([N][K]) is K-major: its rows are K long, 64 elements of 2 bytes: swizzled.
  Stmt k_major_b = MakeGemm({.k = 64, .trans_b = true});
  EXPECT_TRUE(hopper.WgmmaPlanFor(*As<Gemm>(k_major_b), *InKernel(k_major_b)));
}

TEST(CudaTargetWgmmaTest, GemmsSharingATileDecideTogether) {
  // A_s (128 x 64) feeds gemm 1 with B1_s (64 x 128, swizzled) and gemm 2 with B2_s (64 x 96:
  // 192-byte rows, interleaved), so neither takes wgmma: A_s has one layout. Gemm 3, on tiles
  // of its own, does.
  auto shared = [](const char* name, int64_t rows, int64_t cols) {
    return BufferNode::Make(name, kBF16, {Int(rows), Int(cols)}, MemoryScope::kShared);
  };
  auto fragment = [](const char* name, int64_t cols) {
    return BufferNode::Make(name, kF32, {Int(128), Int(cols)}, MemoryScope::kFragment);
  };
  auto gemm = [](const Buffer& a, const Buffer& b, const Buffer& c) {
    return Gemm::Make(Region::Full(a), Region::Full(b), Region::Full(c));
  };
  Buffer a = shared("A_s", 128, 64);
  Stmt one = gemm(a, shared("B1_s", 64, 128), fragment("C1", 128));
  Stmt two = gemm(a, shared("B2_s", 64, 96), fragment("C2", 96));
  Stmt three = gemm(shared("A3_s", 128, 64), shared("B3_s", 64, 128), fragment("C3", 128));
  Kernel kernel = InKernel(Seq::Make({one, two, three}));
  CudaTargetInfo hopper("sm_90a");
  EXPECT_TRUE(hopper.WgmmaPlanFor(*As<Gemm>(one), *InKernel(one))) << "alone it would";
  EXPECT_FALSE(hopper.WgmmaPlanFor(*As<Gemm>(one), *kernel));
  EXPECT_FALSE(hopper.WgmmaPlanFor(*As<Gemm>(two), *kernel));
  EXPECT_TRUE(hopper.WgmmaPlanFor(*As<Gemm>(three), *kernel));
}

TEST(PlanWgmmaTest, SwizzledNMajorBSplitsInWholeAtoms) {
  // 64 x 128 over two warpgroups along N gives each 64 columns: whole 64-column atoms of the
  // swizzled [K][N] tile; 64 x 64 over two would give 32, which would start inside an atom.
  EXPECT_TRUE(Plan({.m = 64, .n = 128, .k = 64, .policy = WarpPolicy::kFullCol}, 256));
  EXPECT_FALSE(Plan({.m = 64, .n = 64, .k = 64, .policy = WarpPolicy::kFullCol}, 256));
}

}  // namespace
}  // namespace tile_ir::cuda

namespace tile_ir::cuda {
namespace {

// `gemm P, V_s -> O`: P a 16-bit fragment [M, K] with `p_layout`, V_s a shared [K, N] tile, O
// an f32 fragment [M, N] with `o_layout`.
Stmt RegisterAGemm(int64_t m, int64_t n, int64_t k, std::optional<Layout> p_layout,
                   std::optional<Layout> o_layout, WarpPolicy policy = WarpPolicy::kSquare) {
  Buffer p = BufferNode::Make("P", kF16, {Int(m), Int(k)}, MemoryScope::kFragment, {},
                              std::move(p_layout));
  Buffer v = BufferNode::Make("V_s", kF16, {Int(k), Int(n)}, MemoryScope::kShared);
  Buffer o = BufferNode::Make("O", kF32, {Int(m), Int(n)}, MemoryScope::kFragment, {},
                              std::move(o_layout));
  return Gemm::Make(Region::Full(p), Region::Full(v), Region::Full(o), false, false, policy, false);
}

TEST(PlanWgmmaTest, ARegisterOperandSplitsWarpgroupsAlongMOnly) {
  // Two warpgroups on 128 x 128: square would give each 128 x 64; A in registers holds whole
  // rows, so each takes 64 rows whatever the policy.
  std::optional<WgmmaPlan> plan =
      PlanWgmma(*As<Gemm>(RegisterAGemm(128, 128, 64, std::nullopt, std::nullopt)), 256);
  ASSERT_TRUE(plan);
  EXPECT_TRUE(plan->a_in_registers);
  EXPECT_EQ(plan->warpgroups_m, 2);
  EXPECT_EQ(plan->warpgroups_n, 1);
  EXPECT_TRUE(plan->operands_swizzled) << "B's rows are 256 bytes";
  // 64 rows cannot feed two warpgroups; a transposed register A is refused.
  EXPECT_FALSE(PlanWgmma(*As<Gemm>(RegisterAGemm(64, 128, 64, std::nullopt, std::nullopt)), 256));
  Stmt transposed = Gemm::Make(As<Gemm>(RegisterAGemm(64, 128, 64, std::nullopt, std::nullopt))->a,
                               As<Gemm>(RegisterAGemm(64, 128, 64, std::nullopt, std::nullopt))->b,
                               As<Gemm>(RegisterAGemm(64, 128, 64, std::nullopt, std::nullopt))->c,
                               true, false, WarpPolicy::kSquare, false);
  EXPECT_FALSE(PlanWgmma(*As<Gemm>(transposed), 128));
}

TEST(WgmmaRegisterALayoutTest, IsTheAccumulatorFragmentOfAnMByKTile) {
  WgmmaPlan plan{128, 128, 64, 2, 1, true, true};
  Layout a = WgmmaRegisterALayout(plan);
  // The PTX ISA's m64nNk16 A fragment: lane 5 of warp 1 holds rows 16 + 1 and 16 + 9 at
  // columns 2, 3, 10, 11 of each k16 slice, elements 0..7 of that slice.
  EXPECT_EQ(At(a, 17, 2).thread, 32 + 5);
  EXPECT_EQ(At(a, 17, 2).reg, 0);
  EXPECT_EQ(At(a, 17, 3).reg, 1);
  EXPECT_EQ(At(a, 25, 2).reg, 2);
  EXPECT_EQ(At(a, 17, 10).reg, 4);
  EXPECT_EQ(At(a, 25, 11).reg, 7);
  // The next k16 slice follows: elements 8..15.
  EXPECT_EQ(At(a, 17, 18).reg, 8);
  // Rows 64.. are the second warpgroup's.
  EXPECT_EQ(At(a, 64 + 17, 2).thread, 128 + 32 + 5);
  // The same expression as the accumulator of an M x K gemm on those warpgroups: a converted
  // accumulator is the operand as it stands.
  Layout accumulator = WgmmaAccumulatorLayout({128, 64, 16, 2, 1});
  for (int64_t i = 0; i < 128; i += 7) {
    for (int64_t j = 0; j < 64; j += 3) {
      EXPECT_EQ(At(a, i, j).thread, At(accumulator, i, j).thread);
      EXPECT_EQ(At(a, i, j).reg, At(accumulator, i, j).reg);
    }
  }
}

TEST(CudaTargetWgmmaTest, ARegisterOperandInItsLayoutLowersToTheRegisterForm) {
  CudaTargetInfo hopper("sm_90a");
  Kernel bare = KernelWith(RegisterAGemm(64, 128, 64, std::nullopt, std::nullopt), 128);
  const Gemm& unlaid = *As<Gemm>(bare->body);
  std::optional<WgmmaPlan> plan = hopper.WgmmaPlanFor(unlaid, *bare);
  ASSERT_TRUE(plan);
  std::optional<Layout> o_layout = hopper.FragmentLayoutForGemm(unlaid, *bare);
  ASSERT_TRUE(o_layout);

  Stmt laid_out = RegisterAGemm(64, 128, 64, WgmmaRegisterALayout(*plan), *o_layout);
  Kernel kernel = KernelWith(laid_out, 128);
  absl::StatusOr<std::optional<Stmt>> call = hopper.LowerGemm({As<Gemm>(laid_out), kernel.get()});
  ASSERT_TRUE(call.ok()) << call.status();
  ASSERT_TRUE(*call);
  const Call* wgmma = As<Call>(As<Evaluate>(**call)->value);
  EXPECT_EQ(wgmma->name, kGemmWgmmaRegisterAIntrinsic);
  std::vector<int64_t> template_args;
  for (size_t i = 3; i < wgmma->args.size(); ++i) {
    template_args.push_back(*AsConstInt(wgmma->args[i]));
  }
  EXPECT_EQ(template_args, (std::vector<int64_t>{64, 128, 64, 1, 1, 0, 0, 0}));

  // P laid out cyclically is not the operand: the target declines, and the generic lowering
  // stages P in shared memory.
  Stmt cyclic = RegisterAGemm(64, 128, 64, passes::CyclicLayout({Int(64), Int(64)}, 128),
                              *o_layout);
  Kernel cyclic_kernel = KernelWith(cyclic, 128);
  absl::StatusOr<std::optional<Stmt>> declined =
      hopper.LowerGemm({As<Gemm>(cyclic), cyclic_kernel.get()});
  ASSERT_TRUE(declined.ok()) << declined.status();
  EXPECT_FALSE(*declined);
}

}  // namespace
}  // namespace tile_ir::cuda
