// The warpgroup gemm through NVRTC for sm_90a: tl::gemm_wgmma instantiated for every transpose
// pair, input type and width the compiler plans, and the suite's gemm operators through the
// whole CUDA pipeline. Compiling needs no GPU; without NVRTC the checks are skipped with the
// reason.
#include <utility>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "gtest/gtest.h"
#include "targets/cuda/cuda_codegen.h"
#include "targets/cuda/cuda_lowering.h"
#include "targets/cuda/cuda_target_info.h"
#include "targets/cuda/nvrtc_compiler.h"
#include "targets/cuda/op_source_testing.h"

namespace tile_ir::cuda {
namespace {

class GemmWgmmaNvrtcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (absl::Status available = NvrtcAvailable(); !available.ok()) {
      GTEST_SKIP() << available.message();
    }
  }
};

// One kernel per input type, transpose pair and warpgroup width, each calling gemm_wgmma twice
// (clearing, then accumulating) on 128 x WIDTH x 32 tiles in core-matrix order.
constexpr char kInstantiations[] = R"(
#include "tl/async_copy.cuh"
#include "tl/gemm_wgmma.cuh"

template <typename T, int WIDTH, bool TRANS_A, bool TRANS_B>
__device__ void Gemm(const T* a, const T* b, float* c) {
  __shared__ __align__(1024) T a_s[128 * 32];
  __shared__ __align__(1024) T b_s[32 * WIDTH];
  for (int e = threadIdx.x; e < 128 * 32; e += blockDim.x) a_s[e] = a[e];
  for (int e = threadIdx.x; e < 32 * WIDTH; e += blockDim.x) b_s[e] = b[e];
  tl::fence_proxy_async();
  __syncthreads();
  float acc[WIDTH];
  tl::gemm_wgmma<128, WIDTH, 32, 1, 1, TRANS_A, TRANS_B, true>(a_s, b_s, acc);
  tl::gemm_wgmma<128, WIDTH, 32, 1, 1, TRANS_A, TRANS_B, false>(a_s, b_s, acc);
  for (int r = 0; r < WIDTH; ++r) c[r * 128 + threadIdx.x] = acc[r];
}

#define GEMM_KERNEL(NAME, T, W, TA, TB) \
  extern "C" __global__ void NAME(const T* a, const T* b, float* c) { Gemm<T, W, TA, TB>(a, b, c); }
GEMM_KERNEL(f16_nn_64, __half, 64, false, false)
GEMM_KERNEL(f16_tn_64, __half, 64, true, false)
GEMM_KERNEL(f16_nt_64, __half, 64, false, true)
GEMM_KERNEL(f16_tt_64, __half, 64, true, true)
GEMM_KERNEL(bf16_nn_8, __nv_bfloat16, 8, false, false)
GEMM_KERNEL(bf16_nn_16, __nv_bfloat16, 16, false, false)
GEMM_KERNEL(bf16_nn_32, __nv_bfloat16, 32, false, false)
GEMM_KERNEL(bf16_nn_96, __nv_bfloat16, 96, false, false)
GEMM_KERNEL(bf16_nn_128, __nv_bfloat16, 128, false, false)
GEMM_KERNEL(bf16_tt_192, __nv_bfloat16, 192, true, true)
GEMM_KERNEL(bf16_nn_256, __nv_bfloat16, 256, false, false)
)";

TEST_F(GemmWgmmaNvrtcTest, DeviceLibraryInstantiationsCompile) {
  absl::StatusOr<NvrtcOutput> compiled =
      CompileWithNvrtc(kInstantiations, "gemm_wgmma_instantiations.cu", {.arch = "sm_90a"});
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_FALSE(compiled->cubin.empty());
  const std::string& ptx = compiled->ptx;
  for (int width : {8, 16, 32, 64, 96, 128, 192, 256}) {
    EXPECT_TRUE(absl::StrContains(ptx, absl::StrCat("wgmma.mma_async.sync.aligned.m64n", width,
                                                    "k16.f32.bf16.bf16")) ||
                absl::StrContains(ptx, absl::StrCat("wgmma.mma_async.sync.aligned.m64n", width,
                                                    "k16.f32.f16.f16")))
        << width;
  }
  EXPECT_TRUE(absl::StrContains(ptx, "wgmma.fence.sync.aligned"));
  EXPECT_TRUE(absl::StrContains(ptx, "wgmma.commit_group.sync.aligned"));
  EXPECT_TRUE(absl::StrContains(ptx, "wgmma.wait_group.sync.aligned 0"));
  EXPECT_TRUE(absl::StrContains(ptx, "fence.proxy.async.shared::cta"));
  // The accumulators stay in registers: no local-memory array.
  EXPECT_FALSE(absl::StrContains(ptx, ".local")) << ptx;
  EXPECT_EQ(compiled->registers.size(), 11u) << compiled->log;
}

// The register-A form at every width: A is a 16-bit fragment in the accumulator layout of an
// M x K tile (here filled per thread), B a shared tile.
constexpr char kRegisterAInstantiations[] = R"(
#include "tl/async_copy.cuh"
#include "tl/gemm_wgmma_rs.cuh"

template <typename T, int WIDTH, bool TRANS_B>
__device__ void Gemm(const T* a, const T* b, float* c) {
  __shared__ __align__(1024) T b_s[64 * WIDTH];
  for (int e = threadIdx.x; e < 64 * WIDTH; e += blockDim.x) b_s[e] = b[e];
  tl::fence_proxy_async();
  __syncthreads();
  T a_regs[128 * 64 / 256];
  for (int r = 0; r < 128 * 64 / 256; ++r) a_regs[r] = a[r * 256 + threadIdx.x];
  float acc[128 * WIDTH / 256];
  tl::gemm_wgmma_rs<128, WIDTH, 64, 2, 1, false, TRANS_B, true>(a_regs, b_s, acc);
  tl::gemm_wgmma_rs<128, WIDTH, 64, 2, 1, false, TRANS_B, false>(a_regs, b_s, acc);
  for (int r = 0; r < 128 * WIDTH / 256; ++r) c[r * 256 + threadIdx.x] = acc[r];
}

#define GEMM_KERNEL(NAME, T, W, TB) \
  extern "C" __global__ void NAME(const T* a, const T* b, float* c) { Gemm<T, W, TB>(a, b, c); }
GEMM_KERNEL(f16_n_64, __half, 64, false)
GEMM_KERNEL(f16_t_64, __half, 64, true)
GEMM_KERNEL(bf16_n_8, __nv_bfloat16, 8, false)
GEMM_KERNEL(bf16_n_16, __nv_bfloat16, 16, false)
GEMM_KERNEL(bf16_n_32, __nv_bfloat16, 32, false)
GEMM_KERNEL(bf16_n_96, __nv_bfloat16, 96, false)
GEMM_KERNEL(bf16_n_128, __nv_bfloat16, 128, false)
GEMM_KERNEL(bf16_t_192, __nv_bfloat16, 192, true)
GEMM_KERNEL(bf16_n_256, __nv_bfloat16, 256, false)
)";

TEST_F(GemmWgmmaNvrtcTest, RegisterAInstantiationsCompile) {
  absl::StatusOr<NvrtcOutput> compiled = CompileWithNvrtc(
      kRegisterAInstantiations, "gemm_wgmma_rs_instantiations.cu", {.arch = "sm_90a"});
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  const std::string& ptx = compiled->ptx;
  for (int width : {8, 16, 32, 64, 96, 128, 192, 256}) {
    EXPECT_TRUE(absl::StrContains(ptx, absl::StrCat("wgmma.mma_async.sync.aligned.m64n", width,
                                                    "k16.f32.bf16.bf16")) ||
                absl::StrContains(ptx, absl::StrCat("wgmma.mma_async.sync.aligned.m64n", width,
                                                    "k16.f32.f16.f16")))
        << width;
  }
  EXPECT_EQ(compiled->registers.size(), 9u) << compiled->log;
}

// Attention's second gemm takes P from registers: the cast of S stays in each thread, and
// P * V is one tl::gemm_wgmma_rs call, with no shared tile for P.
TEST_F(GemmWgmmaNvrtcTest, AttentionTakesPFromRegisters) {
  for (const char* op : {"flash_attn_d128", "flash_attn_d128_b128"}) {
    SCOPED_TRACE(op);
    absl::StatusOr<std::string> source = testing::SuiteOpCudaSource(op, "sm_90a");
    ASSERT_TRUE(source.ok()) << source.status();
    EXPECT_TRUE(absl::StrContains(*source, "tl::gemm_wgmma_rs<")) << *source;
    EXPECT_FALSE(absl::StrContains(*source, "P_staged")) << *source;
    absl::StatusOr<NvrtcOutput> compiled =
        CompileWithNvrtc(*source, absl::StrCat(op, ".cu"), {.arch = "sm_90a"});
    ASSERT_TRUE(compiled.ok()) << compiled.status() << "\n" << *source;
    EXPECT_TRUE(absl::StrContains(compiled->ptx, "wgmma.mma_async.sync.aligned.m64n128k16"));
  }
}

// The suite's gemm operators with shared operands: cuda:sm_90a{gemm=wgmma} turns each
// into calls of tl::gemm_wgmma over core-matrix tiles, and NVRTC compiles the result to wgmma.
TEST_F(GemmWgmmaNvrtcTest, GemmOperatorsLowerToGemmWgmmaAndCompile) {
  struct Case {
    const char* op;
    const char* call;
    bool stores_operands;  // some operand tile is written by ordinary stores (a ragged column)
  };
  for (const Case& c : {
           Case{"gemm_f16", "tl::gemm_wgmma<128, 128, 64, 1, 1, false, false, false>(&A_s[", true},
           Case{"gemm_bf16", "tl::gemm_wgmma<128, 128, 64, 1, 1, false, false, false>(&A_s[", true},
           Case{"gemm_f16_tn", "tl::gemm_wgmma<128, 128, 64, 1, 1, false, true, false>(&A_s[", true},
           Case{"gemm_f16_nt", "tl::gemm_wgmma<128, 128, 64, 1, 1, true, false, false>(&A_s[", true},
           Case{"batched_gemm_f16", "tl::gemm_wgmma<64, 64, 32, 1, 1, false, false, false>(&A_s[",
                true},
           Case{"flash_attn_d64", "tl::gemm_wgmma<64, 64, 64, 1, 1, false, true, false>(&Q_s[",
                false},
       }) {
    SCOPED_TRACE(c.op);
    absl::StatusOr<std::string> source =
        testing::SuiteOpCudaSource(c.op, "sm_90a", WgmmaUse::kWherePossible);
    ASSERT_TRUE(source.ok()) << source.status();
    EXPECT_TRUE(absl::StrContains(*source, c.call)) << *source;
    absl::StatusOr<NvrtcOutput> compiled =
        CompileWithNvrtc(*source, absl::StrCat(c.op, ".cu"), {.arch = "sm_90a"});
    ASSERT_TRUE(compiled.ok()) << compiled.status() << "\n" << *source;
    EXPECT_TRUE(absl::StrContains(compiled->ptx, "wgmma.mma_async.sync.aligned.m64n"));
    EXPECT_FALSE(absl::StrContains(compiled->ptx, "mma.sync.aligned.m16n8k16"));
    // Copies whose only guard is a ragged row's are cp.async (zero-filling the rows past
    // the end), which need no proxy fence; a ragged column's elements are ordinary stores,
    // fenced after. Attention's tiles are ragged in rows only (SEQ).
    EXPECT_EQ(absl::StrContains(*source, "tl::fence_proxy_async();"), c.stores_operands)
        << *source;
    if (!c.stores_operands) EXPECT_TRUE(absl::StrContains(*source, "tl::cp_async_16(&K_s["));
  }
}

// The default sm_90a target takes wgmma where both operand tiles are 128-byte swizzled (the
// 16-bit gemms' 64-wide K tiles) and mma.sync elsewhere (batched_gemm_f16's 32-wide K).
TEST_F(GemmWgmmaNvrtcTest, TheDefaultTargetTakesWgmmaForSwizzledOperandsOnly) {
  for (const auto& [op, call] : {std::pair<const char*, const char*>{"gemm_bf16", "tl::gemm_wgmma<"},
                                 {"gemm_f16_nt", "tl::gemm_wgmma<"},
                                 {"batched_gemm_f16", "tl::gemm_ss<"}}) {
    SCOPED_TRACE(op);
    absl::StatusOr<std::string> source = testing::SuiteOpCudaSource(op, "sm_90a");
    ASSERT_TRUE(source.ok()) << source.status();
    EXPECT_TRUE(absl::StrContains(*source, call)) << *source;
  }
}

// Two gemms read A_s; one of them could take wgmma (swizzled B1_s), the other not (B2_s's
// 192-byte rows): A_s has one layout, so both take mma.sync, and the kernel lowers and
// compiles (core-matrix-tiles would refuse A_s read both as core matrices and by address).
TEST_F(GemmWgmmaNvrtcTest, GemmsSharingATileTakeOneInstruction) {
  absl::StatusOr<Module> module = text::ParseModule(R"(ir_version 1;
producer "test" "1";

kernel two(A: bf16[128, 64], B1: bf16[64, 128], B2: bf16[64, 96], C1: f32[128, 128],
           C2: f32[128, 96]) grid(bx: 1) threads(128) {
  alloc A_s: shared bf16[128, 64];
  alloc B1_s: shared bf16[64, 128];
  alloc B2_s: shared bf16[64, 96];
  alloc C1_l: fragment f32[128, 128];
  alloc C2_l: fragment f32[128, 96];
  fill C1_l = 0.0;
  fill C2_l = 0.0;
  copy A[0 +: 128, 0 +: 64] -> A_s;
  copy B1[0 +: 64, 0 +: 128] -> B1_s;
  copy B2[0 +: 64, 0 +: 96] -> B2_s;
  gemm A_s, B1_s -> C1_l {transpose_a=false, transpose_b=false, policy=square, clear_accum=false};
  gemm A_s, B2_s -> C2_l {transpose_a=false, transpose_b=false, policy=square, clear_accum=false};
  copy C1_l -> C1[0 +: 128, 0 +: 128];
  copy C2_l -> C2[0 +: 128, 0 +: 96];
}
)",
                                                    "two.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<Module> lowered = LowerForCuda(*module, "sm_90a");
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  absl::StatusOr<std::string> source = EmitCudaSource(*lowered, {.arch = "sm_90a"});
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_FALSE(absl::StrContains(*source, "tl::gemm_wgmma<")) << *source;
  EXPECT_TRUE(absl::StrContains(*source, "tl::gemm_ss<128, 128, 64,")) << *source;
  EXPECT_TRUE(absl::StrContains(*source, "tl::gemm_ss<128, 96, 64,")) << *source;
  absl::StatusOr<NvrtcOutput> compiled = CompileWithNvrtc(*source, "two.cu", {.arch = "sm_90a"});
  ASSERT_TRUE(compiled.ok()) << compiled.status() << "\n" << *source;
}

}  // namespace
}  // namespace tile_ir::cuda
