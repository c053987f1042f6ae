// The register-tiled FMA gemm: which gemms it takes and on which thread grid, and, by running
// the device library's loop (tl::fma_tile::GemmFma, the code the GPU runs) on the host for
// every thread of a block, that each accumulator register holds the element the compiler's
// layout says it does. Element values are small integers, exact in every type used.
#include "targets/cuda/gemm_fma.h"

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "passes/analysis/fragment_layout.h"
#include "passes/analysis/fragment_threads.h"
#include "targets/cuda/cuda_target_info.h"
#include "targets/cuda/gemm_fma_cuh_host.h"
#include "targets/cuda/gemm_mma.h"
#include "targets/cuda/gemm_mma_testing.h"
#include "tile_ir/module.h"

namespace tile_ir::cuda {
namespace {

using testing::At;
using testing::GemmSpec;
using testing::KernelWith;
using testing::MakeGemm;
using testing::Place;

std::optional<FmaPlan> Plan(const GemmSpec& spec, int64_t threads) {
  return PlanFma(*As<Gemm>(MakeGemm(spec)), threads);
}

// The gemm of `spec` with its accumulator laid out as `layout`, lowered by `lower`.
template <typename Lower>
std::optional<Stmt> LowerWithLayout(const GemmSpec& spec, const Layout& layout, int64_t threads,
                                    Lower lower) {
  Stmt gemm = MakeGemm(spec, passes::SimplifyLayout(layout, {Int(spec.m), Int(spec.n)}));
  Kernel kernel = KernelWith(gemm, threads);
  absl::StatusOr<std::optional<Stmt>> call = lower({As<Gemm>(gemm), kernel.get()});
  EXPECT_TRUE(call.ok()) << call.status();
  return call.ok() ? *call : std::nullopt;
}

const Call& CallOf(const Stmt& stmt) { return *As<Call>(As<Evaluate>(stmt)->value); }

// The integer arguments of a gemm call: M, N, K, grid, TRANS_A, TRANS_B, CLEAR, LDA, LDB.
std::vector<int64_t> TemplateArgs(const Stmt& stmt) {
  const Call& call = CallOf(stmt);
  std::vector<int64_t> args;
  for (size_t i = 3; i < call.args.size(); ++i) args.push_back(*AsConstInt(call.args[i]));
  return args;
}

bool SameLayout(const Layout& a, const Layout& b, int64_t m, int64_t n) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      Place pa = At(a, i, j);
      Place pb = At(b, i, j);
      if (pa.thread != pb.thread || pa.reg != pb.reg) return false;
    }
  }
  return true;
}

// Small random integers in [-4, 4], one matrix of them per call: exact in every type used,
// and with no pattern an index formula could alias.
std::vector<std::vector<int>> RandomMatrix(int rows, int cols, std::mt19937& random) {
  std::uniform_int_distribution<int> value(-4, 4);
  std::vector<std::vector<int>> matrix(rows, std::vector<int>(cols));
  for (std::vector<int>& row : matrix) {
    for (int& element : row) element = value(random);
  }
  return matrix;
}

// Runs GemmFma<...> on the host for each of TM * TN threads over operands in the given types
// (rows PAD_A, PAD_B elements longer than the tile, the padding poisoned) and checks, through
// the layout the compiler gives `spec`, every element of C; checks too that the compiler's plan
// and call are this instantiation.
template <typename TIn, typename TAcc, int M, int N, int K, int TM, int TN, bool TRANS_A,
          bool TRANS_B, bool CLEAR, int PAD_A = 0, int PAD_B = 0>
void ExpectGemmFma(DataType input, DataType accumulator) {
  constexpr int kThreads = TM * TN;
  constexpr int kRegisters = (M / TM) * (N / TN);
  constexpr int kLda = (TRANS_A ? M : K) + PAD_A;
  constexpr int kLdb = (TRANS_B ? K : N) + PAD_B;
  SCOPED_TRACE(::testing::Message()
               << M << "x" << N << "x" << K << " on " << TM << "x" << TN << (TRANS_A ? " t" : " n")
               << (TRANS_B ? "t" : "n") << (CLEAR ? " clear" : ""));
  GemmSpec spec{.input = input,
                .m = M,
                .n = N,
                .k = K,
                .trans_a = TRANS_A,
                .trans_b = TRANS_B,
                .clear = CLEAR,
                .pad_a = PAD_A,
                .pad_b = PAD_B,
                .accumulator = accumulator};
  std::optional<Layout> layout = FmaAccumulatorLayout(*As<Gemm>(MakeGemm(spec)), kThreads);
  ASSERT_TRUE(layout);
  std::optional<Stmt> call = LowerWithLayout(spec, *layout, kThreads, LowerGemmToFma);
  ASSERT_TRUE(call);
  EXPECT_EQ(CallOf(*call).name, kGemmFmaIntrinsic);
  EXPECT_EQ(TemplateArgs(*call),
            (std::vector<int64_t>{M, N, K, TM, TN, TRANS_A, TRANS_B, CLEAR, kLda, kLdb}));

  std::mt19937 random(M * 1000 + N * 10 + K);
  const std::vector<std::vector<int>> op_a = RandomMatrix(M, K, random);
  const std::vector<std::vector<int>> op_b = RandomMatrix(K, N, random);
  const std::vector<std::vector<int>> initial = RandomMatrix(M, N, random);
  constexpr TIn kPoison = 1000;
  std::vector<TIn> a((TRANS_A ? K : M) * kLda, kPoison);
  std::vector<TIn> b((TRANS_B ? N : K) * kLdb, kPoison);
  for (int i = 0; i < M; ++i) {
    for (int k = 0; k < K; ++k) a[TRANS_A ? k * kLda + i : i * kLda + k] = op_a[i][k];
  }
  for (int k = 0; k < K; ++k) {
    for (int j = 0; j < N; ++j) b[TRANS_B ? j * kLdb + k : k * kLdb + j] = op_b[k][j];
  }
  std::vector<std::vector<TAcc>> c(kThreads, std::vector<TAcc>(kRegisters, TAcc(kPoison)));
  std::vector<int> hits(kThreads * kRegisters, 0);
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      Place place = At(*layout, i, j);
      ASSERT_TRUE(place.thread >= 0 && place.thread < kThreads && place.reg >= 0 &&
                  place.reg < kRegisters)
          << "(" << i << ", " << j << ") -> (" << place.thread << ", " << place.reg << ")";
      ++hits[place.thread * kRegisters + place.reg];
      if (!CLEAR) c[place.thread][place.reg] = initial[i][j];
    }
  }
  for (int hit : hits) ASSERT_EQ(hit, 1) << "the layout must be one to one";
  for (int thread = 0; thread < kThreads; ++thread) {
    tl::fma_tile::GemmFma<M, N, K, TM, TN, TRANS_A, TRANS_B, CLEAR, kLda, kLdb>(
        a.data(), b.data(), c[thread].data(), thread);
  }
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      int64_t expected = CLEAR ? 0 : initial[i][j];
      for (int k = 0; k < K; ++k) expected += op_a[i][k] * op_b[k][j];
      Place place = At(*layout, i, j);
      ASSERT_EQ(c[place.thread][place.reg], static_cast<TAcc>(expected))
          << "C(" << i << ", " << j << ") on thread " << place.thread << ", register " << place.reg;
    }
  }
}

TEST(GemmFmaSimulationTest, EveryRegisterHoldsItsElement) {
  // TileLang's f32 "nt" test gemm, rows padded to 36 as pad-shared-rows does.
  ExpectGemmFma<float, float, 128, 128, 32, 16, 8, false, true, false, 4, 4>(kF32, kF32);
  // ops/gemm_f32.tile: B's rows of 64 padded to 68.
  ExpectGemmFma<float, float, 64, 64, 32, 16, 8, false, false, false, 4, 4>(kF32, kF32);
  ExpectGemmFma<float, float, 32, 48, 12, 8, 8, true, false, true>(kF32, kF32);
  // K = 6: two k steps per pass; f32 operands into f64.
  ExpectGemmFma<float, double, 16, 16, 6, 4, 8, true, true, true>(kF32, kF64);
  // K = 7: one k step per pass; three warps.
  ExpectGemmFma<float, float, 24, 32, 7, 12, 8, false, true, false, 0, 1>(kF32, kF32);
  ExpectGemmFma<double, double, 32, 32, 8, 4, 8, false, false, false>(kF64, kF64);
  // One thread holds the whole tile.
  ExpectGemmFma<float, float, 8, 8, 4, 1, 1, false, false, true>(kF32, kF32);
}

TEST(PlanFmaTest, PicksTheSquarestMicroTileWithWarpLanesAlongN) {
  auto grid = [](const GemmSpec& spec, int64_t threads) {
    std::optional<FmaPlan> plan = Plan(spec, threads);
    return plan ? std::make_pair(plan->threads_m, plan->threads_n) : std::make_pair(-1L, -1L);
  };
  const GemmSpec f32{.input = kF32};  // 128 x 128 x 32
  // 16 x 8 and 8 x 16 micro-tiles are as square; the smaller TN wins.
  EXPECT_EQ(grid(f32, 128), std::make_pair(16L, 8L));
  EXPECT_EQ(grid(GemmSpec{.input = kF32, .m = 16}, 128), std::make_pair(4L, 32L)) << "4 x 4";
  EXPECT_EQ(grid(GemmSpec{.input = kF32, .n = 8}, 128), std::make_pair(16L, 8L))
      << "8 x 1 with 8 lanes along N beats 4 x 2 with 4";
  EXPECT_EQ(grid(GemmSpec{.input = kF32, .m = 64, .n = 64}, 256), std::make_pair(16L, 16L));
  EXPECT_EQ(grid(GemmSpec{.input = kF32, .m = 8, .n = 8, .k = 4}, 1), std::make_pair(1L, 1L));
  std::optional<FmaPlan> plan = Plan(GemmSpec{.input = kF32, .trans_b = true, .pad_a = 4}, 128);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->k, 32);
  EXPECT_EQ(plan->lda, 36) << "padded rows";
  EXPECT_EQ(plan->ldb, 32);
}

TEST(PlanFmaTest, DeclinesWhatItCannotRun) {
  EXPECT_TRUE(Plan(GemmSpec{.input = kF32}, 128));
  EXPECT_TRUE(Plan(GemmSpec{.input = kF16}, 128)) << "the target asks mma.sync first";
  EXPECT_TRUE(Plan(GemmSpec{.input = kBF16, .m = 64, .n = 64, .accumulator = kF64}, 128));
  EXPECT_FALSE(Plan(GemmSpec{.input = kI8}, 128));
  EXPECT_FALSE(Plan(GemmSpec{.input = kF8E4M3}, 128));
  EXPECT_FALSE(Plan(GemmSpec{.input = kF32, .accumulator = kF16}, 128));
  EXPECT_FALSE(Plan(GemmSpec{.input = kF32}, 64)) << "256 accumulators per thread";
  EXPECT_FALSE(Plan(GemmSpec{.input = kF32, .accumulator = kF64}, 128))
      << "128 f64 accumulators take 256 registers";
  EXPECT_FALSE(Plan(GemmSpec{.input = kF32, .m = 7, .n = 7, .k = 4}, 4)) << "no grid splits 7 x 7";

  auto fits = [](Region a, Region b, Region c) {
    Stmt gemm = Gemm::Make(std::move(a), std::move(b), std::move(c));
    return FmaAccumulatorLayout(*As<Gemm>(gemm), 128).has_value();
  };
  auto buffer = [](const char* name, int64_t rows, int64_t cols, MemoryScope scope) {
    return BufferNode::Make(name, kF32, {Int(rows), Int(cols)}, scope);
  };
  Buffer a = buffer("A_s", 64, 32, MemoryScope::kShared);
  Buffer b = buffer("B_s", 32, 64, MemoryScope::kShared);
  Buffer c = buffer("C_l", 64, 64, MemoryScope::kFragment);
  EXPECT_TRUE(fits(Region::Full(a), Region::Full(b), Region::Full(c)));
  EXPECT_TRUE(fits(Region::Full(buffer("A_f", 64, 32, MemoryScope::kFragment)), Region::Full(b),
                   Region::Full(c)))
      << "planned as the tile it is staged in";
  EXPECT_FALSE(fits(Region::Full(a), Region::Full(b),
                    Region::Full(buffer("C_s", 64, 64, MemoryScope::kShared))));
  EXPECT_FALSE(fits(Region::Full(a), Region::Full(buffer("B_s", 16, 64, MemoryScope::kShared)),
                    Region::Full(c)))
      << "A's K and B's K differ";
}

TEST(FmaAccumulatorLayoutTest, IsTheStridedGridOfMicroTiles) {
  std::optional<Layout> layout = FmaAccumulatorLayout(*As<Gemm>(MakeGemm({.input = kF32})), 128);
  ASSERT_TRUE(layout);
  // TM = 16, TN = 8, NR = 16.
  for (int64_t i : {0, 1, 15, 16, 127}) {
    for (int64_t j : {0, 7, 8, 127}) {
      Place place = At(*layout, i, j);
      EXPECT_EQ(place.thread, (i % 16) * 8 + j % 8) << i << ", " << j;
      EXPECT_EQ(place.reg, (i / 16) * 16 + j / 8) << i << ", " << j;
    }
  }
}

TEST(LowerGemmToFmaTest, DeclinesAnAccumulatorLaidOutOtherwise) {
  const GemmSpec spec{.input = kF32};
  // The mma.sync layout of the same shape (128 registers per thread as well).
  std::optional<Layout> mma = MmaAccumulatorLayout(*As<Gemm>(MakeGemm({})), 128);
  ASSERT_TRUE(mma);
  EXPECT_FALSE(LowerWithLayout(spec, *mma, 128, LowerGemmToFma));
  std::optional<Layout> fma = FmaAccumulatorLayout(*As<Gemm>(MakeGemm(spec)), 128);
  ASSERT_TRUE(fma);
  std::optional<Stmt> call = LowerWithLayout(spec, *fma, 128, LowerGemmToFma);
  ASSERT_TRUE(call);
  const Call& node = CallOf(*call);
  EXPECT_EQ(node.name, "cuda.gemm_fma");
  ASSERT_EQ(node.args.size(), 13u);
}

// The target asks wgmma, then mma.sync, then the FMA gemm, on every architecture, and lowers
// each gemm as it laid out its accumulator.
TEST(LowerGemmToFmaTest, LeavesAFragmentOperandToBeStaged) {
  Buffer a = BufferNode::Make("P", kF32, {Int(64), Int(32)}, MemoryScope::kFragment);
  Buffer b = BufferNode::Make("B_s", kF32, {Int(32), Int(64)}, MemoryScope::kShared);
  Buffer c = BufferNode::Make("C_l", kF32, {Int(64), Int(64)}, MemoryScope::kFragment);
  Stmt planned = Gemm::Make(Region::Full(a), Region::Full(b), Region::Full(c));
  std::optional<Layout> layout = FmaAccumulatorLayout(*As<Gemm>(planned), 128);
  ASSERT_TRUE(layout);
  Buffer laid_out = BufferNode::Make("C_l", kF32, {Int(64), Int(64)}, MemoryScope::kFragment, {},
                                     passes::SimplifyLayout(*layout, {Int(64), Int(64)}));
  Stmt gemm = Gemm::Make(Region::Full(a), Region::Full(b), Region::Full(laid_out));
  Kernel kernel = KernelWith(gemm, 128);
  absl::StatusOr<std::optional<Stmt>> call = LowerGemmToFma({As<Gemm>(gemm), kernel.get()});
  ASSERT_TRUE(call.ok()) << call.status();
  EXPECT_FALSE(*call);
  // Staged, the same gemm takes the call.
  Buffer staged = BufferNode::Make("P_staged", kF32, {Int(64), Int(32)}, MemoryScope::kShared);
  Stmt staged_gemm = Gemm::Make(Region::Full(staged), Region::Full(b), Region::Full(laid_out));
  call = LowerGemmToFma({As<Gemm>(staged_gemm), kernel.get()});
  ASSERT_TRUE(call.ok()) << call.status();
  ASSERT_TRUE(*call);
  EXPECT_EQ(TemplateArgs(**call),
            (std::vector<int64_t>{64, 64, 32, 16, 8, false, false, false, 32, 64}));
}

TEST(CudaTargetInfoGemmChoiceTest, FmaOnlyWhereTheTensorCoresDecline) {
  for (const char* arch : {"sm_80", "sm_90a"}) {
    SCOPED_TRACE(arch);
    CudaTargetInfo target(arch);
    auto lower = [&](const passes::GemmLoweringRequest& request) {
      return target.LowerGemm(request);
    };
    for (const GemmSpec& spec :
         {GemmSpec{.input = kF32}, GemmSpec{.input = kF32, .trans_b = true},
          GemmSpec{.input = kF16, .k = 24}, GemmSpec{.input = kF64, .m = 64, .accumulator = kF64},
          GemmSpec{.input = kF16}}) {
      Stmt gemm = MakeGemm(spec);
      Kernel kernel = KernelWith(gemm, 128);
      std::optional<Layout> chosen = target.FragmentLayoutForGemm(*As<Gemm>(gemm), *kernel);
      ASSERT_TRUE(chosen);
      std::optional<Layout> mma = MmaAccumulatorLayout(*As<Gemm>(gemm), 128);
      std::optional<Layout> fma = FmaAccumulatorLayout(*As<Gemm>(gemm), 128);
      ASSERT_TRUE(fma);
      const bool tensor_cores = spec.input == kF16 && spec.k % 16 == 0;
      EXPECT_EQ(mma.has_value(), tensor_cores);
      EXPECT_TRUE(SameLayout(*chosen, tensor_cores ? *mma : *fma, spec.m, spec.n));
      std::optional<Stmt> call = LowerWithLayout(spec, *chosen, 128, lower);
      ASSERT_TRUE(call);
      EXPECT_EQ(CallOf(*call).name, tensor_cores ? "cuda.gemm_ss" : "cuda.gemm_fma");
      if (tensor_cores) {
        // An f16 gemm laid out for the FMA gemm (a user's layout) keeps the generic loops.
        EXPECT_FALSE(LowerWithLayout(spec, *fma, 128, lower));
      }
    }
  }
}

}  // namespace
}  // namespace tile_ir::cuda
