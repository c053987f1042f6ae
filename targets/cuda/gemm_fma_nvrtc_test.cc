// The register-tiled FMA gemm through NVRTC: tl::gemm_fma instantiated for every transpose and
// operand type, and f32 gemms (TileLang's "nt" test gemm, the suite's gemm_f32) through the
// whole CUDA pipeline, compiled for sm_80 and sm_90a with their accumulators in registers (no
// local memory, no stack frame). Compiling needs no GPU; without NVRTC the checks are skipped.
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

class GemmFmaNvrtcTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (absl::Status available = NvrtcAvailable(); !available.ok()) {
      GTEST_SKIP() << available.message();
    }
  }
};

// Whether ptxas's report in `log` gives `kernel` no stack frame: its accumulators stayed in
// registers (one index computed at run time sends the whole array to local memory).
void ExpectNoStackFrame(const std::string& log, const std::string& kernel) {
  const std::string properties = absl::StrCat("Function properties for ", kernel);
  size_t at = log.find(properties);
  ASSERT_NE(at, std::string::npos) << log;
  size_t line_end = log.find('\n', log.find('\n', at) + 1);
  std::string report = log.substr(at, line_end - at);
  EXPECT_TRUE(absl::StrContains(report, " 0 bytes stack frame, 0 bytes spill stores")) << report;
}

// One kernel per operand type and transpose pair, each calling gemm_fma twice (clearing, then
// accumulating) on a 16 x 8 grid of threads over a 64 x 64 x 24 tile with padded rows.
constexpr char kInstantiations[] = R"(
#include "tl/gemm_fma.cuh"

template <typename TA, typename TB, typename TC, bool TRANS_A, bool TRANS_B>
__device__ void Gemm(const TA* a, const TB* b, TC* c) {
  // Room for either orientation: 64 rows of 24 + 4 or 24 rows of 64 + 4.
  __shared__ TA a_s[64 * 28];
  __shared__ TB b_s[64 * 28];
  for (int e = threadIdx.x; e < 64 * 28; e += blockDim.x) {
    a_s[e] = a[e];
    b_s[e] = b[e];
  }
  __syncthreads();
  TC acc[32];
  tl::gemm_fma<64, 64, 24, 16, 8, TRANS_A, TRANS_B, true, (TRANS_A ? 64 : 24) + 4, (TRANS_B ? 24 : 64) + 4>(a_s, b_s, acc);
  tl::gemm_fma<64, 64, 24, 16, 8, TRANS_A, TRANS_B, false, (TRANS_A ? 64 : 24) + 4, (TRANS_B ? 24 : 64) + 4>(a_s, b_s, acc);
  for (int r = 0; r < 32; ++r) c[r * 128 + threadIdx.x] = acc[r];
}

#define GEMM_KERNEL(NAME, TA, TB, TC, TRANS_A, TRANS_B)                              \
  extern "C" __global__ void __launch_bounds__(128) NAME(const TA* a, const TB* b, TC* c) { \
    Gemm<TA, TB, TC, TRANS_A, TRANS_B>(a, b, c);                                      \
  }
GEMM_KERNEL(f32_nn, float, float, float, false, false)
GEMM_KERNEL(f32_tn, float, float, float, true, false)
GEMM_KERNEL(f32_nt, float, float, float, false, true)
GEMM_KERNEL(f32_tt, float, float, float, true, true)
GEMM_KERNEL(f64_nn, double, double, double, false, false)
GEMM_KERNEL(f16_f32_nt, __half, __half, float, false, true)
GEMM_KERNEL(bf16_f32_tn, __nv_bfloat16, __nv_bfloat16, float, true, false)
GEMM_KERNEL(f16_bf16_f64_nn, __half, __nv_bfloat16, double, false, false)
)";

TEST_P(GemmFmaNvrtcTest, DeviceLibraryInstantiationsCompile) {
  const std::string arch = GetParam();
  absl::StatusOr<NvrtcOutput> compiled =
      CompileWithNvrtc(kInstantiations, "gemm_fma_instantiations.cu", {.arch = arch});
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_FALSE(compiled->cubin.empty());
  EXPECT_TRUE(absl::StrContains(compiled->ptx, "fma.rn.f32"));
  EXPECT_TRUE(absl::StrContains(compiled->ptx, "fma.rn.f64"));
  EXPECT_FALSE(absl::StrContains(compiled->ptx, ".local")) << compiled->ptx;
  EXPECT_EQ(compiled->registers.size(), 8u) << compiled->log;
  for (const char* kernel : {"f32_nn", "f32_tn", "f32_nt", "f32_tt", "f64_nn", "f16_f32_nt",
                             "bf16_f32_tn", "f16_bf16_f64_nn"}) {
    ExpectNoStackFrame(compiled->log, kernel);
  }
}

// TileLang's f32 gemm test configuration (M = 512, N = 1024, K = 768, B transposed, 128 x 128 x
// 32 tiles, 128 threads, 2 stages): each thread 16 x 8 of the grid holds an 8 x 16 micro-tile.
constexpr char kTileLangF32Nt[] = R"(ir_version 1;
producer "test" "1";

kernel gemm_f32_nt(A: f32[512, 768], B: f32[1024, 768], C: f32[512, 1024])
    grid(bx: 8, by: 4) threads(128) {
  alloc A_s: shared f32[128, 32];
  alloc B_s: shared f32[128, 32];
  alloc C_l: fragment f32[128, 128];
  fill C_l = 0.0;
  for k in 0 +: 24 pipelined(num_stages=2) {
    copy A[by * 128 +: 128, k * 32 +: 32] -> A_s;
    copy B[bx * 128 +: 128, k * 32 +: 32] -> B_s;
    gemm A_s, B_s -> C_l {transpose_a=false, transpose_b=true, policy=square, clear_accum=false};
  }
  copy C_l -> C[by * 128 +: 128, bx * 128 +: 128];
}
)";

TEST_P(GemmFmaNvrtcTest, F32GemmsLowerToGemmFmaAndKeepAccumulatorsInRegisters) {
  const std::string arch = GetParam();
  absl::StatusOr<Module> module = text::ParseModule(kTileLangF32Nt, "gemm_f32_nt.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<Module> lowered = LowerForCuda(*module, arch);
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  absl::StatusOr<std::string> nt = EmitCudaSource(*lowered, {.arch = arch});
  ASSERT_TRUE(nt.ok()) << nt.status();
  absl::StatusOr<std::string> nn = testing::SuiteOpCudaSource("gemm_f32", arch);
  ASSERT_TRUE(nn.ok()) << nn.status();
  struct Case {
    const char* kernel;
    const std::string& source;
    const char* call;  // rows padded by pad-shared-rows: 32 -> 36, 64 -> 68 elements
  };
  for (const Case& c : {
           Case{"gemm_f32_nt", *nt,
                "tl::gemm_fma<128, 128, 32, 16, 8, false, true, false, 36, 36>(&A_s["},
           Case{"gemm_f32", *nn,
                "tl::gemm_fma<64, 64, 32, 16, 8, false, false, false, 36, 68>(&A_s["},
       }) {
    SCOPED_TRACE(c.kernel);
    EXPECT_TRUE(absl::StrContains(c.source, c.call)) << c.source;
    EXPECT_TRUE(absl::StrContains(c.source, "], &C_l[0]);")) << c.source;
    absl::StatusOr<NvrtcOutput> compiled =
        CompileWithNvrtc(c.source, absl::StrCat(c.kernel, ".cu"), {.arch = arch});
    ASSERT_TRUE(compiled.ok()) << compiled.status() << "\n" << c.source;
    EXPECT_FALSE(absl::StrContains(compiled->ptx, ".local")) << compiled->ptx;
    ExpectNoStackFrame(compiled->log, c.kernel);
  }
}

INSTANTIATE_TEST_SUITE_P(Archs, GemmFmaNvrtcTest, ::testing::Values("sm_80", "sm_90a"));

}  // namespace
}  // namespace tile_ir::cuda
