// Runs the device library's gemm_ss and gemm_rs loops (tl::mma::GemmSs and GemmRs in
// device/gemm_mma.cuh, the code the GPU runs) on the host, one thread per lane, over a model
// of ldmatrix and mma.sync.m16n8k16 written from the PTX ISA's descriptions, and reads the
// accumulators through the compiler's layouts (MmaAccumulatorLayout, MmaRegisterALayout).
// This checks every address, register and fragment position the kernel uses; the tensor
// cores' arithmetic itself is left to the GPU test (device_tests/). Element values are small
// integers kept in the 16-bit slots as integers, so the model's products are exact.
#include <barrier>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "passes/analysis/fragment_layout.h"
#include "passes/analysis/fragment_threads.h"
#include "targets/cuda/gemm_mma.h"
#include "targets/cuda/gemm_mma_cuh_host.h"
#include "targets/cuda/gemm_mma_testing.h"
#include "tile_ir/module.h"

namespace tile_ir::cuda {
namespace {

using testing::GemmSpec;
using testing::MakeGemm;

// One warp's lanes meeting at each collective instruction.
struct Warp {
  std::barrier<> sync{32};
  std::mutex mu;
  std::string error;  // the first misuse the model saw
  // The operand tiles, to check the addresses ldmatrix gets.
  std::vector<std::pair<const uint16_t*, size_t>> tiles;
  const uint16_t* rows[32] = {};
  unsigned a[32][4] = {};
  unsigned b[32][2] = {};
  float c[32][4] = {};

  void Fail(std::string message) {
    std::lock_guard<std::mutex> lock(mu);
    if (error.empty()) error = std::move(message);
  }
};

thread_local Warp* this_warp = nullptr;
thread_local int this_lane = 0;

int Half(unsigned reg, int half) { return half == 0 ? reg & 0xffff : reg >> 16; }

struct ModelOps {
  template <bool TRANS>
  static void LdMatrixX4(unsigned (&r)[4], const void* row) {
    Load<TRANS>(r, row);
  }
  template <bool TRANS>
  static void LdMatrixX2(unsigned (&r)[2], const void* row) {
    Load<TRANS>(r, row);
  }

  // gemm_rs's packing of two 16-bit register elements into one operand register.
  static unsigned Pack(uint16_t low, uint16_t high) { return low | unsigned{high} << 16; }

  // PTX ISA, mma.m16n8k16 with .f16/.bf16 inputs (g = lane / 4, t = lane % 4): a_i, half
  // i % 2 of register i / 2, is row g (+ 8 for i = 2, 3, 6, 7), column 2t + (i & 1) (+ 8 for
  // i >= 4); b_i is row 2t + (i & 1) (+ 8 for i >= 2), column g; c_i is row g (+ 8 for
  // i >= 2), column 2t + (i & 1).
  template <bool BF16>
  static void Mma(float* c, const unsigned (&a)[4], const unsigned (&b)[2]) {
    Warp& warp = *this_warp;
    const int lane = this_lane;
    for (int i = 0; i < 4; ++i) warp.a[lane][i] = a[i];
    for (int i = 0; i < 2; ++i) warp.b[lane][i] = b[i];
    for (int i = 0; i < 4; ++i) warp.c[lane][i] = c[i];
    warp.sync.arrive_and_wait();
    int a_tile[16][16];
    int b_tile[16][8];
    for (int l = 0; l < 32; ++l) {
      const int g = l / 4;
      const int t = l % 4;
      for (int i = 0; i < 8; ++i) {
        int row = g + ((i / 2) % 2 == 1 ? 8 : 0);
        int col = 2 * t + (i & 1) + (i >= 4 ? 8 : 0);
        a_tile[row][col] = Half(warp.a[l][i / 2], i % 2);
      }
      for (int i = 0; i < 4; ++i) {
        b_tile[2 * t + (i & 1) + (i >= 2 ? 8 : 0)][g] = Half(warp.b[l][i / 2], i % 2);
      }
    }
    const int g = lane / 4;
    const int t = lane % 4;
    for (int i = 0; i < 4; ++i) {
      int row = g + (i >= 2 ? 8 : 0);
      int col = 2 * t + (i & 1);
      float sum = warp.c[lane][i];
      for (int k = 0; k < 16; ++k) sum += static_cast<float>(a_tile[row][k] * b_tile[k][col]);
      c[i] = sum;
    }
    warp.sync.arrive_and_wait();
  }

 private:
  // PTX ISA, ldmatrix .m8n8 .b16: row i of matrix q is 8 consecutive elements at the address
  // of lane 8q + i, which must be 16-byte aligned; lane l receives in register q the elements
  // (l / 4, 2 (l % 4)) and (l / 4, 2 (l % 4) + 1) of matrix q, low half first, or of its
  // transpose with .trans.
  template <bool TRANS, size_t NUM>
  static void Load(unsigned (&r)[NUM], const void* row) {
    Warp& warp = *this_warp;
    const int lane = this_lane;
    warp.rows[lane] = static_cast<const uint16_t*>(row);
    warp.sync.arrive_and_wait();
    for (size_t q = 0; q < NUM; ++q) {
      for (int i = 0; i < 8; ++i) CheckRow(warp, warp.rows[8 * q + i]);
    }
    const int g = lane / 4;
    const int t = lane % 4;
    for (size_t q = 0; q < NUM; ++q) {
      auto element = [&](int i, int j) { return warp.rows[8 * q + i][j]; };
      unsigned lo = TRANS ? element(2 * t, g) : element(g, 2 * t);
      unsigned hi = TRANS ? element(2 * t + 1, g) : element(g, 2 * t + 1);
      r[q] = lo | hi << 16;
    }
    warp.sync.arrive_and_wait();
  }

  static void CheckRow(Warp& warp, const uint16_t* row) {
    for (const auto& [tile, size] : warp.tiles) {
      if (row < tile || row >= tile + size) continue;
      size_t offset = row - tile;
      if (offset % 8 != 0) warp.Fail(absl::StrCat("a row at element ", offset, " is misaligned"));
      if (offset + 8 > size)
        warp.Fail(absl::StrCat("a row at element ", offset, " leaves its tile"));
      return;
    }
    warp.Fail("ldmatrix got an address outside the operand tiles");
  }
};

struct Place {
  int64_t thread;
  int64_t reg;
};

Place At(const Layout& layout, int64_t i, int64_t j) {
  passes::IntEnv env = {{layout.inputs[0].get(), i}, {layout.inputs[1].get(), j}};
  return {passes::EvaluateInt(layout.outputs[0], env).value_or(-1),
          passes::EvaluateInt(layout.outputs[1], env).value_or(-1)};
}

// Runs `lane_code(thread)` on every lane of `warps` warps, one warp after the other, each lane
// a host thread meeting the others at the model's collective instructions; `tiles` are the
// shared tiles ldmatrix may read. A failure names the first misuse the model saw.
template <typename LaneCode>
void RunWarps(int warps, std::vector<std::reference_wrapper<std::vector<uint16_t>>> tiles,
              LaneCode lane_code) {
  for (int w = 0; w < warps; ++w) {
    Warp warp;
    for (std::vector<uint16_t>& tile : tiles) warp.tiles.emplace_back(tile.data(), tile.size());
    std::vector<std::thread> lanes;
    for (int lane = 0; lane < 32; ++lane) {
      lanes.emplace_back([&, lane] {
        this_warp = &warp;
        this_lane = lane;
        lane_code(w * 32 + lane);
      });
    }
    for (std::thread& lane : lanes) lane.join();
    ASSERT_EQ(warp.error, "") << "warp " << w;
  }
}

// The gemm_ss template arguments the compiler picks for `spec` on `threads` threads.
std::vector<int64_t> CompilerArgs(const GemmSpec& spec, const Layout& layout, int64_t threads) {
  Stmt gemm = MakeGemm(spec, passes::SimplifyLayout(layout, {Int(spec.m), Int(spec.n)}));
  Launch launch;
  launch.threads = {threads};
  Kernel kernel = KernelNode::Make("k", {}, {}, std::move(launch), gemm);
  absl::StatusOr<std::optional<Stmt>> call = LowerGemmToMma({As<Gemm>(gemm), kernel.get()});
  if (!call.ok() || !*call) return {};
  std::vector<int64_t> args;
  const Call& node = *As<Call>(As<Evaluate>(**call)->value);
  for (size_t i = 3; i < node.args.size(); ++i) args.push_back(*AsConstInt(node.args[i]));
  return args;
}

// PAD_A and PAD_B lengthen the stored rows (pad-shared-rows' strides).
template <int M, int N, int K, int WARPS_M, int WARPS_N, bool TRANS_A, bool TRANS_B, bool CLEAR,
          int PAD_A = 0, int PAD_B = 0>
void ExpectGemmSs(WarpPolicy policy) {
  constexpr int kLda = (TRANS_A ? M : K) + PAD_A;
  constexpr int kLdb = (TRANS_B ? K : N) + PAD_B;
  constexpr int kThreads = WARPS_M * WARPS_N * 32;
  constexpr int kRegisters = M * N / kThreads;
  SCOPED_TRACE(::testing::Message()
               << M << "x" << N << "x" << K << " on " << WARPS_M << "x" << WARPS_N
               << " warps, trans_a " << TRANS_A << ", trans_b " << TRANS_B << ", clear " << CLEAR);
  GemmSpec spec{.m = M,
                .n = N,
                .k = K,
                .trans_a = TRANS_A,
                .trans_b = TRANS_B,
                .policy = policy,
                .clear = CLEAR,
                .pad_a = PAD_A,
                .pad_b = PAD_B};
  std::optional<Layout> layout = MmaAccumulatorLayout(*As<Gemm>(MakeGemm(spec)), kThreads);
  ASSERT_TRUE(layout);
  ASSERT_EQ(CompilerArgs(spec, *layout, kThreads),
            (std::vector<int64_t>{M, N, K, WARPS_M, WARPS_N, TRANS_A, TRANS_B, CLEAR, kLda, kLdb}));

  std::mt19937 random(M * 7919 + N * 104729 + K + TRANS_A * 2 + TRANS_B);
  std::uniform_int_distribution<int> small(0, 7);
  std::vector<int> a(M * K);  // op(A), row-major
  std::vector<int> b(K * N);  // op(B), row-major
  for (int& x : a) x = small(random);
  for (int& x : b) x = small(random);
  // Padding elements hold a value no product uses, so reading one shows in the result.
  std::vector<uint16_t> a_tile((TRANS_A ? K : M) * kLda, 9999);
  std::vector<uint16_t> b_tile((TRANS_B ? N : K) * kLdb, 9999);
  for (int m = 0; m < M; ++m) {
    for (int k = 0; k < K; ++k) a_tile[TRANS_A ? k * kLda + m : m * kLda + k] = a[m * K + k];
  }
  for (int k = 0; k < K; ++k) {
    for (int n = 0; n < N; ++n) b_tile[TRANS_B ? n * kLdb + k : k * kLdb + n] = b[k * N + n];
  }
  auto initial = [](int i, int j) { return static_cast<float>((i * 7 + j) % 11); };
  std::vector<std::vector<float>> regs(kThreads, std::vector<float>(kRegisters, 1e30f));
  for (int i = 0; !CLEAR && i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      Place place = At(*layout, i, j);
      regs[place.thread][place.reg] = initial(i, j);
    }
  }

  RunWarps(WARPS_M * WARPS_N, {a_tile, b_tile}, [&](int thread) {
    tl::mma::GemmSs<M, N, K, WARPS_M, WARPS_N, TRANS_A, TRANS_B, CLEAR, kLda, kLdb, false,
                    ModelOps>(a_tile.data(), b_tile.data(), regs[thread].data(), thread);
  });
  if (::testing::Test::HasFatalFailure()) return;

  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      float want = CLEAR ? 0.0f : initial(i, j);
      for (int k = 0; k < K; ++k) want += static_cast<float>(a[i * K + k] * b[k * N + j]);
      Place place = At(*layout, i, j);
      ASSERT_EQ(regs[place.thread][place.reg], want) << "C[" << i << ", " << j << "]";
    }
  }
}

TEST(GemmSsSimulationTest, AllTransposesOfTheSquareTile) {
  ExpectGemmSs<128, 128, 32, 2, 2, false, false, false>(WarpPolicy::kSquare);
  ExpectGemmSs<128, 128, 32, 2, 2, true, false, false>(WarpPolicy::kSquare);
  ExpectGemmSs<128, 128, 32, 2, 2, false, true, false>(WarpPolicy::kSquare);
  ExpectGemmSs<128, 128, 32, 2, 2, true, true, false>(WarpPolicy::kSquare);
}

TEST(GemmSsSimulationTest, PaddedRowsAsPadSharedRowsLaysThemOut) {
  // 64-byte rows padded to 80, 256-byte rows to 272 (the suite's 128x128x32 tiles).
  ExpectGemmSs<128, 128, 32, 2, 2, false, false, false, 8, 8>(WarpPolicy::kSquare);
  ExpectGemmSs<128, 128, 32, 2, 2, true, true, false, 8, 8>(WarpPolicy::kSquare);
  ExpectGemmSs<64, 64, 32, 2, 2, false, true, true, 8, 8>(WarpPolicy::kSquare);
}

TEST(GemmSsSimulationTest, ClearingAndOtherWarpGrids) {
  ExpectGemmSs<64, 64, 32, 2, 2, false, false, true>(WarpPolicy::kSquare);
  ExpectGemmSs<64, 64, 64, 4, 1, true, true, false>(WarpPolicy::kFullRow);
  ExpectGemmSs<64, 64, 16, 1, 4, false, true, true>(WarpPolicy::kFullCol);
}

TEST(GemmSsSimulationTest, AnOddNumberOfN8TilesUsesAnX2Load) {
  ExpectGemmSs<32, 48, 32, 1, 2, false, false, false>(WarpPolicy::kSquare);
  ExpectGemmSs<32, 48, 32, 1, 2, true, true, false>(WarpPolicy::kSquare);
  ExpectGemmSs<16, 8, 16, 1, 1, false, true, true>(WarpPolicy::kSquare);
}

// `gemm P, V_s -> O_l` on warps along M: P a 16-bit fragment [M, K] with `p_layout`, V_s a
// shared [K, N] tile ([N, K] transposed) whose rows are `pad` elements longer, O_l a fragment
// f32[M, N] with `o_layout`.
Stmt MakeRegisterAGemm(int64_t m, int64_t n, int64_t k, bool trans_b, bool clear, int64_t pad,
                       std::optional<Layout> p_layout = std::nullopt,
                       std::optional<Layout> o_layout = std::nullopt) {
  Buffer p = BufferNode::Make("P", kF16, {Int(m), Int(k)}, MemoryScope::kFragment, {},
                              std::move(p_layout));
  int64_t v_cols = trans_b ? k : n;
  Buffer v = BufferNode::Make("V_s", kF16, {Int(trans_b ? n : k), Int(v_cols)},
                              MemoryScope::kShared, testing::PaddedStrides(v_cols, pad));
  Buffer o = BufferNode::Make("O_l", kF32, {Int(m), Int(n)}, MemoryScope::kFragment, {},
                              std::move(o_layout));
  return Gemm::Make(Region::Full(p), Region::Full(v), Region::Full(o), false, trans_b,
                    WarpPolicy::kFullRow, clear);
}

// Attention's two gemms on the host: S = Q * K^T by gemm_ss (M x KV x D, warps along M), P the
// 16-bit conversion of S in each thread's own registers, O (+)= P * op(V) by gemm_rs (M x N x
// KV). Checks that the compiler's register-A layout of P is S's accumulator layout, that it
// lowers to the gemm_rs call with these template arguments, and every element of O.
template <int M, int N, int D, int KV, int WARPS_M, bool TRANS_B, bool CLEAR, int PAD_B = 0>
void ExpectGemmRsAfterGemmSs() {
  constexpr int kThreads = WARPS_M * 32;
  constexpr int kLdv = (TRANS_B ? KV : N) + PAD_B;
  SCOPED_TRACE(::testing::Message()
               << "S " << M << "x" << KV << "x" << D << ", O " << M << "x" << N << " on " << WARPS_M
               << " warps, trans_b " << TRANS_B << ", clear " << CLEAR << ", pad " << PAD_B);
  GemmSpec s_spec{
      .m = M, .n = KV, .k = D, .trans_b = true, .policy = WarpPolicy::kFullRow, .clear = true};
  std::optional<Layout> s_layout = MmaAccumulatorLayout(*As<Gemm>(MakeGemm(s_spec)), kThreads);
  Stmt bare = MakeRegisterAGemm(M, N, KV, TRANS_B, CLEAR, PAD_B);
  std::optional<Layout> p_layout = MmaRegisterALayout(*As<Gemm>(bare), kThreads);
  std::optional<Layout> o_layout = MmaAccumulatorLayout(*As<Gemm>(bare), kThreads);
  ASSERT_TRUE(s_layout && p_layout && o_layout);
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < KV; ++j) {
      Place s = At(*s_layout, i, j);
      Place p = At(*p_layout, i, j);
      ASSERT_TRUE(s.thread == p.thread && s.reg == p.reg) << "P[" << i << ", " << j << "]";
    }
  }
  Stmt laid_out = MakeRegisterAGemm(M, N, KV, TRANS_B, CLEAR, PAD_B,
                                    passes::SimplifyLayout(*p_layout, {Int(M), Int(KV)}),
                                    passes::SimplifyLayout(*o_layout, {Int(M), Int(N)}));
  Launch launch;
  launch.threads = {kThreads};
  Kernel kernel = KernelNode::Make("k", {}, {}, std::move(launch), laid_out);
  absl::StatusOr<std::optional<Stmt>> call = LowerGemmToMma({As<Gemm>(laid_out), kernel.get()});
  ASSERT_TRUE(call.ok() && *call) << call.status();
  const Call& node = *As<Call>(As<Evaluate>(**call)->value);
  EXPECT_EQ(node.name, kGemmRsIntrinsic);
  std::vector<int64_t> args;
  for (size_t i = 3; i < node.args.size(); ++i) args.push_back(*AsConstInt(node.args[i]));
  EXPECT_EQ(args, (std::vector<int64_t>{M, N, KV, WARPS_M, 1, false, TRANS_B, CLEAR, kLdv}));

  std::mt19937 random(M * 31 + N * 17 + D + KV * 3 + TRANS_B);
  std::uniform_int_distribution<int> small(0, 3);
  std::vector<uint16_t> q_tile(M * D);
  std::vector<uint16_t> k_tile(KV * D);  // stored [KV][D]: S's B operand, transposed
  for (uint16_t& x : q_tile) x = small(random);
  for (uint16_t& x : k_tile) x = small(random);
  std::vector<int> v(KV * N);  // op(V), row-major
  for (int& x : v) x = small(random) * 2 + 1;
  std::vector<uint16_t> v_tile((TRANS_B ? N : KV) * kLdv, 9999);
  for (int k = 0; k < KV; ++k) {
    for (int n = 0; n < N; ++n) v_tile[TRANS_B ? n * kLdv + k : k * kLdv + n] = v[k * N + n];
  }
  constexpr int kSRegisters = M * KV / kThreads;
  std::vector<std::vector<float>> s_regs(kThreads, std::vector<float>(kSRegisters, 1e30f));
  RunWarps(WARPS_M, {q_tile, k_tile}, [&](int thread) {
    tl::mma::GemmSs<M, KV, D, WARPS_M, 1, false, true, true, D, D, false, ModelOps>(
        q_tile.data(), k_tile.data(), s_regs[thread].data(), thread);
  });
  if (::testing::Test::HasFatalFailure()) return;
  // P = cast(S), each thread converting the registers it holds (integers: exact).
  std::vector<std::vector<uint16_t>> p_regs(kThreads, std::vector<uint16_t>(kSRegisters));
  for (int t = 0; t < kThreads; ++t) {
    for (int r = 0; r < kSRegisters; ++r) p_regs[t][r] = static_cast<uint16_t>(s_regs[t][r]);
  }
  auto initial = [](int i, int j) { return static_cast<float>((i * 5 + j) % 13); };
  constexpr int kORegisters = M * N / kThreads;
  std::vector<std::vector<float>> o_regs(kThreads, std::vector<float>(kORegisters, 1e30f));
  for (int i = 0; !CLEAR && i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      Place place = At(*o_layout, i, j);
      o_regs[place.thread][place.reg] = initial(i, j);
    }
  }
  RunWarps(WARPS_M, {v_tile}, [&](int thread) {
    tl::mma::GemmRs<M, N, KV, WARPS_M, 1, false, TRANS_B, CLEAR, kLdv, false, ModelOps>(
        p_regs[thread].data(), v_tile.data(), o_regs[thread].data(), thread);
  });
  if (::testing::Test::HasFatalFailure()) return;

  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      float want = CLEAR ? 0.0f : initial(i, j);
      for (int k = 0; k < KV; ++k) {
        int s = 0;
        for (int d = 0; d < D; ++d) s += q_tile[i * D + d] * k_tile[k * D + d];
        want += static_cast<float>(s * v[k * N + j]);
      }
      Place place = At(*o_layout, i, j);
      ASSERT_EQ(o_regs[place.thread][place.reg], want) << "O[" << i << ", " << j << "]";
    }
  }
}

TEST(GemmRsSimulationTest, AttentionTilesTakePFromTheConvertedAccumulator) {
  // flash_attn_d64's and flash_attn_d128's tiles: 4 warps of 16 rows, V's rows padded.
  ExpectGemmRsAfterGemmSs<64, 64, 64, 64, 4, false, false, 8>();
  ExpectGemmRsAfterGemmSs<64, 128, 64, 64, 4, false, false, 8>();
  // Two m16 tiles per warp, eight warps.
  ExpectGemmRsAfterGemmSs<128, 64, 32, 64, 4, false, true>();
  ExpectGemmRsAfterGemmSs<128, 32, 16, 32, 8, false, false>();
}

TEST(GemmRsSimulationTest, TransposedBAndAnOddNumberOfN8Tiles) {
  ExpectGemmRsAfterGemmSs<32, 24, 32, 32, 2, true, true>();
  ExpectGemmRsAfterGemmSs<32, 24, 32, 48, 1, false, false, 8>();
  ExpectGemmRsAfterGemmSs<16, 8, 16, 16, 1, true, false, 8>();
}

}  // namespace
}  // namespace tile_ir::cuda
