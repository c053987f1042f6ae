// The tensor-core gemm through NVRTC: tl::gemm_ss instantiated for every transpose and input
// type, tl::gemm_rs (A in registers) for each B orientation, and the gemm and attention
// operators of the suite through the whole CUDA pipeline, compiled for sm_80 and sm_90a. Compiling
// needs no GPU; without NVRTC the compile checks are skipped with the reason.
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "targets/cuda/cuda_codegen.h"
#include "targets/cuda/cuda_lowering.h"
#include "targets/cuda/cuda_target_info.h"
#include "targets/cuda/nvrtc_compiler.h"
#include "targets/cuda/op_source_testing.h"

namespace tile_ir::cuda {
namespace {

class GemmMmaNvrtcTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (absl::Status available = NvrtcAvailable(); !available.ok()) {
      GTEST_SKIP() << available.message();
    }
  }
};

// One kernel per input type and transpose pair, each calling gemm_ss twice (clearing, then
// accumulating) over 2 x 2 warps of 32 x 24 tiles: three n8 tiles, so .x4 and .x2 loads.
constexpr char kInstantiations[] = R"(
#include "tl/gemm_mma.cuh"

template <typename T, bool TRANS_A, bool TRANS_B>
__device__ void Gemm(const T* a, const T* b, float* c) {
  // Room for the padded rows (8 more elements per row) that the calls below declare.
  __shared__ __align__(16) T a_s[64 * 72];
  __shared__ __align__(16) T b_s[48 * 56];
  for (int e = threadIdx.x; e < 64 * 32; e += blockDim.x) a_s[e] = a[e];
  for (int e = threadIdx.x; e < 32 * 48; e += blockDim.x) b_s[e] = b[e];
  __syncthreads();
  float acc[24];
  tl::gemm_ss<64, 48, 32, 2, 2, TRANS_A, TRANS_B, true, (TRANS_A ? 64 : 32) + 8, (TRANS_B ? 32 : 48) + 8>(a_s, b_s, acc);
  tl::gemm_ss<64, 48, 32, 2, 2, TRANS_A, TRANS_B, false, (TRANS_A ? 64 : 32) + 8, (TRANS_B ? 32 : 48) + 8>(a_s, b_s, acc);
  for (int r = 0; r < 24; ++r) c[r * 128 + threadIdx.x] = acc[r];
}

#define GEMM_KERNEL(NAME, T, TA, TB) \
  extern "C" __global__ void NAME(const T* a, const T* b, float* c) { Gemm<T, TA, TB>(a, b, c); }
GEMM_KERNEL(f16_nn, __half, false, false)
GEMM_KERNEL(f16_tn, __half, true, false)
GEMM_KERNEL(f16_nt, __half, false, true)
GEMM_KERNEL(f16_tt, __half, true, true)
GEMM_KERNEL(bf16_nn, __nv_bfloat16, false, false)
GEMM_KERNEL(bf16_tn, __nv_bfloat16, true, false)
GEMM_KERNEL(bf16_nt, __nv_bfloat16, false, true)
GEMM_KERNEL(bf16_tt, __nv_bfloat16, true, true)
)";

TEST_P(GemmMmaNvrtcTest, DeviceLibraryInstantiationsCompile) {
  const std::string arch = GetParam();
  absl::StatusOr<NvrtcOutput> compiled =
      CompileWithNvrtc(kInstantiations, "gemm_ss_instantiations.cu", {.arch = arch});
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_FALSE(compiled->cubin.empty());
  const std::string& ptx = compiled->ptx;
  EXPECT_TRUE(absl::StrContains(ptx, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"));
  EXPECT_TRUE(absl::StrContains(ptx, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"));
  EXPECT_TRUE(absl::StrContains(ptx, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"));
  EXPECT_TRUE(absl::StrContains(ptx, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"));
  EXPECT_TRUE(absl::StrContains(ptx, "ldmatrix.sync.aligned.m8n8.x2.shared.b16"));
  EXPECT_TRUE(absl::StrContains(ptx, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"));
  EXPECT_TRUE(absl::StrContains(ptx, "ldmatrix.sync.aligned.m8n8.x2.shared.b16"));
  // The accumulators stay in registers: no local-memory array.
  EXPECT_FALSE(absl::StrContains(ptx, ".local")) << ptx;
  EXPECT_EQ(compiled->registers.size(), 8u) << compiled->log;
}

// The gemm operators on mma.sync (on sm_90a, the target that keeps every gemm there: the
// default takes wgmma where both operand tiles are swizzled, as gemm_f16_nt's are): the
// pipeline turns each into calls of tl::gemm_ss (one in the pipelined loop, one in its
// epilogue) on the thread's registers, and NVRTC compiles the result.
TEST_P(GemmMmaNvrtcTest, GemmOperatorsLowerToGemmSsAndCompile) {
  const std::string arch = GetParam();
  struct Case {
    const char* op;
    const char* call;
  };
  for (const Case& c : {
           Case{"gemm_f16", "tl::gemm_ss<128, 128, 64, 2, 2, false, false, false, 72, 136>(&A_s["},
           Case{"gemm_bf16", "tl::gemm_ss<128, 128, 64, 2, 2, false, false, false, 72, 136>(&A_s["},
           Case{"gemm_f16_tn", "tl::gemm_ss<128, 128, 64, 2, 2, false, true, false, 72, 72>(&A_s["},
           Case{"gemm_f16_nt", "tl::gemm_ss<128, 128, 64, 2, 2, true, false, false, 136, 136>(&A_s["},
           Case{"batched_gemm_f16", "tl::gemm_ss<64, 64, 32, 2, 2, false, false, false, 40, 72>(&A_s["},
       }) {
    SCOPED_TRACE(c.op);
    absl::StatusOr<std::string> source = testing::SuiteOpCudaSource(
        c.op, arch, arch == "sm_90a" ? WgmmaUse::kNever : WgmmaUse::kSwizzledOperands);
    ASSERT_TRUE(source.ok()) << source.status();
    EXPECT_TRUE(absl::StrContains(*source, c.call)) << *source;
    EXPECT_TRUE(absl::StrContains(*source, "], &C_l[0]);")) << *source;
    absl::StatusOr<NvrtcOutput> compiled =
        CompileWithNvrtc(*source, absl::StrCat(c.op, ".cu"), {.arch = arch});
    ASSERT_TRUE(compiled.ok()) << compiled.status() << "\n" << *source;
    EXPECT_TRUE(absl::StrContains(compiled->ptx, "mma.sync.aligned.m16n8k16"));
  }
}

// gemm_rs for each input type and B orientation: A is a 16-bit fragment in the accumulator
// layout of a 64 x 32 tile on 4 warps along M (here filled per thread), B a shared tile of
// five n8 tiles (so .x4 and .x2 loads), its rows padded.
constexpr char kRegisterAInstantiations[] = R"(
#include "tl/gemm_mma.cuh"

template <typename T, bool TRANS_B>
__device__ void Gemm(const T* a, const T* b, float* c) {
  __shared__ __align__(16) T b_s[48 * 40];
  for (int e = threadIdx.x; e < 32 * 40; e += blockDim.x) b_s[e] = b[e];
  __syncthreads();
  T a_regs[64 * 32 / 128];
  for (int r = 0; r < 64 * 32 / 128; ++r) a_regs[r] = a[r * 128 + threadIdx.x];
  float acc[64 * 40 / 128];
  tl::gemm_rs<64, 40, 32, 4, 1, false, TRANS_B, true, (TRANS_B ? 32 : 40) + 8>(a_regs, b_s, acc);
  tl::gemm_rs<64, 40, 32, 4, 1, false, TRANS_B, false, (TRANS_B ? 32 : 40) + 8>(a_regs, b_s, acc);
  for (int r = 0; r < 64 * 40 / 128; ++r) c[r * 128 + threadIdx.x] = acc[r];
}

#define GEMM_KERNEL(NAME, T, TB) \
  extern "C" __global__ void NAME(const T* a, const T* b, float* c) { Gemm<T, TB>(a, b, c); }
GEMM_KERNEL(f16_n, __half, false)
GEMM_KERNEL(f16_t, __half, true)
GEMM_KERNEL(bf16_n, __nv_bfloat16, false)
GEMM_KERNEL(bf16_t, __nv_bfloat16, true)
)";

TEST_P(GemmMmaNvrtcTest, RegisterAInstantiationsCompile) {
  const std::string arch = GetParam();
  absl::StatusOr<NvrtcOutput> compiled =
      CompileWithNvrtc(kRegisterAInstantiations, "gemm_rs_instantiations.cu", {.arch = arch});
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  const std::string& ptx = compiled->ptx;
  EXPECT_TRUE(absl::StrContains(ptx, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"));
  EXPECT_TRUE(absl::StrContains(ptx, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"));
  // A is never loaded from shared memory: only B's ldmatrix (x4 and, for the odd n8 tile, x2).
  EXPECT_TRUE(absl::StrContains(ptx, "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"));
  EXPECT_TRUE(absl::StrContains(ptx, "ldmatrix.sync.aligned.m8n8.x2.shared.b16"));
  // A's registers and the accumulators stay in registers: no local-memory array.
  EXPECT_FALSE(absl::StrContains(ptx, ".local")) << ptx;
  EXPECT_EQ(compiled->registers.size(), 4u) << compiled->log;
}

// Attention on sm_80: P = cast(S) stays in the registers that hold S, and P * V is one
// tl::gemm_rs call per loop body (steady state and epilogue) reading P from them. The source
// stores P nowhere: no staged tile, no shared mirror; the only shared tiles are the operands
// the program declares.
TEST_P(GemmMmaNvrtcTest, AttentionTakesPFromRegistersOnSm80) {
  if (GetParam() != "sm_80") GTEST_SKIP() << "sm_90a reads P through wgmma (gemm_wgmma_nvrtc_test)";
  struct Case {
    const char* op;
    const char* call;  // V's rows padded from 64 (128) to 72 (136) elements
  };
  for (const Case& c : {
           Case{"flash_attn_d64", "tl::gemm_rs<64, 64, 64, 4, 1, false, false, false, 72>(&P[0]"},
           Case{"flash_attn_d64_causal",
                "tl::gemm_rs<64, 64, 64, 4, 1, false, false, false, 72>(&P[0]"},
           Case{"flash_attn_d128",
                "tl::gemm_rs<64, 128, 64, 4, 1, false, false, false, 136>(&P[0]"},
           Case{"flash_attn_d128_causal",
                "tl::gemm_rs<64, 128, 64, 4, 1, false, false, false, 136>(&P[0]"},
       }) {
    const char* op = c.op;
    SCOPED_TRACE(op);
    absl::StatusOr<std::string> source = testing::SuiteOpCudaSource(op, "sm_80");
    ASSERT_TRUE(source.ok()) << source.status();
    EXPECT_TRUE(absl::StrContains(*source, c.call)) << *source;
    for (const char* staged : {"P_staged", "P_shared", "S_staged", "S_shared"}) {
      EXPECT_FALSE(absl::StrContains(*source, staged)) << staged << "\n" << *source;
    }
    absl::StatusOr<NvrtcOutput> compiled =
        CompileWithNvrtc(*source, absl::StrCat(op, ".cu"), {.arch = "sm_80"});
    ASSERT_TRUE(compiled.ok()) << compiled.status() << "\n" << *source;
    EXPECT_TRUE(
        absl::StrContains(compiled->ptx, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"));
    // P, S and the accumulators are register arrays indexed by constants: no local memory.
    EXPECT_FALSE(absl::StrContains(compiled->ptx, ".local")) << compiled->ptx;
  }
}

INSTANTIATE_TEST_SUITE_P(Archs, GemmMmaNvrtcTest, ::testing::Values("sm_80", "sm_90a"));

}  // namespace
}  // namespace tile_ir::cuda
