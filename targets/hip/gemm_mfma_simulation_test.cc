// Runs the device library's MFMA loops (tl::mfma::GemmMfma and GemmMfmaRs in
// device/gemm_mfma.h, the code the GPU runs) on the host, one thread per lane, over a model of
// v_mfma_f32_32x32x8 written from the ISA's lane mapping, and reads the accumulators through
// the compiler's layouts (MfmaAccumulatorLayout, MfmaRegisterALayout). Nothing here can run
// MFMA itself (no AMD GPU), so this is what checks every offset, register and fragment position
// of the kernels hipcc compiles. Element values are small integers, so products are exact.
#include <array>
#include <barrier>
#include <cstdint>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "passes/analysis/fragment_layout.h"
#include "passes/analysis/fragment_threads.h"
#include "targets/hip/device/gemm_mfma.h"
#include "targets/hip/gemm_mfma.h"
#include "tile_ir/buffer.h"
#include "tile_ir/module.h"
#include "tile_ir/stmt.h"

namespace tile_ir::hip {
namespace {

// One wavefront's lanes meeting at each instruction.
struct Wave {
  std::barrier<> sync{64};
  std::array<std::array<uint16_t, 4>, 64> src_a = {};
  std::array<std::array<uint16_t, 4>, 64> src_b = {};
};

thread_local Wave* this_wave = nullptr;
thread_local int this_lane = 0;

struct ModelOps {
  using Vector = std::array<uint16_t, 4>;
  using Accumulator = std::array<float, 16>;

  // ISA, v_mfma_f32_32x32x8 (one block): SRC_A[l % 32][4 (l / 32) + v], SRC_B[4 (l / 32) +
  // v][l % 32], D[8 (v / 4) + 4 (l / 32) + v % 4][l % 32] for lane l and item v.
  static Accumulator Step(const Vector& src_a, const Vector& src_b, Accumulator c) {
    Wave& wave = *this_wave;
    const int lane = this_lane;
    wave.src_a[lane] = src_a;
    wave.src_b[lane] = src_b;
    wave.sync.arrive_and_wait();
    int a[32][8];
    int b[8][32];
    for (int l = 0; l < 64; ++l) {
      for (int v = 0; v < 4; ++v) {
        a[l % 32][4 * (l / 32) + v] = wave.src_a[l][v];
        b[4 * (l / 32) + v][l % 32] = wave.src_b[l][v];
      }
    }
    for (int v = 0; v < 16; ++v) {
      const int row = 8 * (v / 4) + 4 * (lane / 32) + v % 4;
      const int col = lane % 32;
      for (int k = 0; k < 8; ++k) c[v] += static_cast<float>(a[row][k] * b[k][col]);
    }
    wave.sync.arrive_and_wait();
    return c;
  }
};

// Runs `lane_code(thread)` on every lane of `waves` wavefronts, one after the other.
template <typename LaneCode>
void RunWaves(int waves, LaneCode lane_code) {
  for (int w = 0; w < waves; ++w) {
    Wave wave;
    std::vector<std::thread> lanes;
    for (int lane = 0; lane < 64; ++lane) {
      lanes.emplace_back([&, lane] {
        this_wave = &wave;
        this_lane = lane;
        lane_code(w * 64 + lane);
      });
    }
    for (std::thread& lane : lanes) lane.join();
  }
}

struct Place {
  int64_t thread;
  int64_t reg;
};

Place At(const Layout& layout, int64_t i, int64_t j) {
  passes::IntEnv env = {{layout.inputs[0].get(), i}, {layout.inputs[1].get(), j}};
  return {passes::EvaluateInt(layout.outputs[0], env).value_or(-1),
          passes::EvaluateInt(layout.outputs[1], env).value_or(-1)};
}

// gemm A, B_s -> C_l: A a shared [M, K] tile (or [K, M] transposed), or with `a_fragment` a
// 16-bit fragment [M, K] with `a_layout`; B_s [K, N] ([N, K] transposed); C_l f32 [M, N].
Stmt MakeGemm(int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b, WarpPolicy policy,
              bool clear, bool a_fragment = false, std::optional<Layout> a_layout = std::nullopt,
              std::optional<Layout> c_layout = std::nullopt) {
  Buffer a = BufferNode::Make(a_fragment ? "A_l" : "A_s", kF16,
                              {Int(trans_a ? k : m), Int(trans_a ? m : k)},
                              a_fragment ? MemoryScope::kFragment : MemoryScope::kShared, {},
                              std::move(a_layout));
  Buffer b = BufferNode::Make("B_s", kF16, {Int(trans_b ? n : k), Int(trans_b ? k : n)},
                              MemoryScope::kShared);
  Buffer c = BufferNode::Make("C_l", kF32, {Int(m), Int(n)}, MemoryScope::kFragment, {},
                              std::move(c_layout));
  return Gemm::Make(Region::Full(a), Region::Full(b), Region::Full(c), trans_a, trans_b, policy,
                    clear);
}

// The template arguments of the call the compiler makes of `gemm` on `threads` threads.
std::vector<int64_t> CallArgs(const Stmt& gemm, int64_t threads, const char* name) {
  Launch launch;
  launch.threads = {threads};
  Kernel kernel = KernelNode::Make("k", {}, {}, std::move(launch), gemm);
  absl::StatusOr<std::optional<Stmt>> call = LowerGemmToMfma({As<Gemm>(gemm), kernel.get()});
  if (!call.ok() || !*call) return {};
  const Call& node = *As<Call>(As<Evaluate>(**call)->value);
  EXPECT_EQ(node.name, name);
  std::vector<int64_t> args;
  for (size_t i = 3; i < node.args.size(); ++i) args.push_back(*AsConstInt(node.args[i]));
  return args;
}

// S = op(Q) op(K) by gemm_mfma (M x KV x D, on the waves `policy` picks); with `chain`, then
// P = cast(S) in each thread and O (+)= P * op(V) by gemm_mfma_rs (M x N x KV, waves along
// M). Checks the compiler's calls, that P's register-A layout is S's accumulator layout, and
// every element of S and O.
template <int M, int KV, int D, int WARPS_M, int WARPS_N, bool TRANS_Q, bool TRANS_K, int N = 32,
          bool TRANS_V = false, bool CLEAR = false>
void ExpectMfmaLoops(WarpPolicy policy, bool chain) {
  constexpr int kThreads = WARPS_M * WARPS_N * 64;
  SCOPED_TRACE(::testing::Message() << "S " << M << "x" << KV << "x" << D << " on " << WARPS_M
                                    << "x" << WARPS_N << " waves, chain " << chain);
  Stmt s_gemm = MakeGemm(M, KV, D, TRANS_Q, TRANS_K, policy, true);
  std::optional<Layout> s_layout = MfmaAccumulatorLayout(*As<Gemm>(s_gemm), kThreads);
  ASSERT_TRUE(s_layout);
  Stmt s_laid = MakeGemm(M, KV, D, TRANS_Q, TRANS_K, policy, true, false, std::nullopt,
                         passes::SimplifyLayout(*s_layout, {Int(M), Int(KV)}));
  EXPECT_EQ(CallArgs(s_laid, kThreads, kGemmMfmaIntrinsic),
            (std::vector<int64_t>{M, KV, D, WARPS_M, WARPS_N, TRANS_Q, TRANS_K, 1}));

  std::mt19937 random(M * 131 + KV * 7 + D + TRANS_Q * 2 + TRANS_K);
  std::uniform_int_distribution<int> small(0, 3);
  std::vector<int> q(M * D);   // op(Q), row-major
  std::vector<int> k(D * KV);  // op(K), row-major
  for (int& x : q) x = small(random);
  for (int& x : k) x = small(random);
  std::vector<uint16_t> q_tile(M * D);
  std::vector<uint16_t> k_tile(D * KV);
  for (int m = 0; m < M; ++m) {
    for (int d = 0; d < D; ++d) q_tile[TRANS_Q ? d * M + m : m * D + d] = q[m * D + d];
  }
  for (int d = 0; d < D; ++d) {
    for (int n = 0; n < KV; ++n) k_tile[TRANS_K ? n * D + d : d * KV + n] = k[d * KV + n];
  }
  constexpr int kSRegisters = M * KV / kThreads;
  std::vector<std::vector<float>> s_regs(kThreads, std::vector<float>(kSRegisters, 1e30f));
  RunWaves(WARPS_M * WARPS_N, [&](int thread) {
    tl::mfma::GemmMfma<M, KV, D, WARPS_M, WARPS_N, TRANS_Q, TRANS_K, true, ModelOps>(
        q_tile.data(), k_tile.data(), s_regs[thread].data(), thread);
  });
  std::vector<int> s(M * KV, 0);
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < KV; ++j) {
      for (int d = 0; d < D; ++d) s[i * KV + j] += q[i * D + d] * k[d * KV + j];
      Place place = At(*s_layout, i, j);
      ASSERT_EQ(s_regs[place.thread][place.reg], s[i * KV + j]) << "S[" << i << ", " << j << "]";
    }
  }
  if (!chain) return;

  Stmt o_gemm = MakeGemm(M, N, KV, false, TRANS_V, WarpPolicy::kFullRow, CLEAR, true);
  std::optional<Layout> p_layout = MfmaRegisterALayout(*As<Gemm>(o_gemm), kThreads);
  std::optional<Layout> o_layout = MfmaAccumulatorLayout(*As<Gemm>(o_gemm), kThreads);
  ASSERT_TRUE(p_layout && o_layout);
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < KV; ++j) {
      Place p = At(*p_layout, i, j);
      Place from = At(*s_layout, i, j);
      ASSERT_TRUE(p.thread == from.thread && p.reg == from.reg) << "P[" << i << ", " << j << "]";
    }
  }
  Stmt o_laid = MakeGemm(M, N, KV, false, TRANS_V, WarpPolicy::kFullRow, CLEAR, true,
                         passes::SimplifyLayout(*p_layout, {Int(M), Int(KV)}),
                         passes::SimplifyLayout(*o_layout, {Int(M), Int(N)}));
  EXPECT_EQ(CallArgs(o_laid, kThreads, kGemmMfmaRegisterAIntrinsic),
            (std::vector<int64_t>{M, N, KV, WARPS_M * WARPS_N, 1, false, TRANS_V, CLEAR}));

  std::vector<int> v(KV * N);  // op(V), row-major
  for (int& x : v) x = small(random) * 2 + 1;
  std::vector<uint16_t> v_tile(KV * N);
  for (int kk = 0; kk < KV; ++kk) {
    for (int n = 0; n < N; ++n) v_tile[TRANS_V ? n * KV + kk : kk * N + n] = v[kk * N + n];
  }
  std::vector<std::vector<uint16_t>> p_regs(kThreads, std::vector<uint16_t>(kSRegisters));
  for (int t = 0; t < kThreads; ++t) {
    for (int r = 0; r < kSRegisters; ++r) p_regs[t][r] = static_cast<uint16_t>(s_regs[t][r]);
  }
  auto initial = [](int i, int j) { return static_cast<float>((i * 3 + j) % 7); };
  constexpr int kORegisters = M * N / kThreads;
  std::vector<std::vector<float>> o_regs(kThreads, std::vector<float>(kORegisters, 1e30f));
  for (int i = 0; !CLEAR && i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      Place place = At(*o_layout, i, j);
      o_regs[place.thread][place.reg] = initial(i, j);
    }
  }
  RunWaves(WARPS_M * WARPS_N, [&](int thread) {
    tl::mfma::GemmMfmaRs<M, N, KV, WARPS_M * WARPS_N, 1, false, TRANS_V, CLEAR, ModelOps>(
        p_regs[thread].data(), v_tile.data(), o_regs[thread].data(), thread);
  });
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) {
      float want = CLEAR ? 0.0f : initial(i, j);
      for (int kk = 0; kk < KV; ++kk) want += static_cast<float>(s[i * KV + kk] * v[kk * N + j]);
      Place place = At(*o_layout, i, j);
      ASSERT_EQ(o_regs[place.thread][place.reg], want) << "O[" << i << ", " << j << "]";
    }
  }
}

TEST(GemmMfmaSimulationTest, EveryTransposeAndWaveGrid) {
  ExpectMfmaLoops<64, 64, 16, 1, 1, false, false>(WarpPolicy::kSquare, false);
  ExpectMfmaLoops<64, 64, 16, 1, 1, true, false>(WarpPolicy::kSquare, false);
  ExpectMfmaLoops<64, 64, 16, 1, 1, false, true>(WarpPolicy::kSquare, false);
  ExpectMfmaLoops<64, 64, 16, 1, 1, true, true>(WarpPolicy::kSquare, false);
  ExpectMfmaLoops<64, 128, 8, 1, 2, false, false>(WarpPolicy::kSquare, false);
}

TEST(GemmMfmaSimulationTest, AttentionTilesTakePFromTheConvertedAccumulator) {
  // flash_attn_d64's shape on HIP: 2 waves along M, S 64 x 64, O 64 x 64.
  ExpectMfmaLoops<64, 64, 32, 2, 1, false, true, 64>(WarpPolicy::kFullRow, true);
  // Two 32-row tiles per wave, transposed V, clearing.
  ExpectMfmaLoops<64, 32, 16, 1, 1, false, true, 32, true, true>(WarpPolicy::kFullRow, true);
}

}  // namespace
}  // namespace tile_ir::hip
