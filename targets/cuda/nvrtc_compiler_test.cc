// NVRTC compile checks of the hand-written kernels of testdata/targets/cuda,
// compile errors, PTX-only output, and the ptxas report parser. The compile
// checks skip, with the reason, where NVRTC is not installed.
#include "targets/cuda/nvrtc_compiler.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "frontends/text/parser.h"
#include "targets/cuda/cuda_codegen.h"
#include "targets/cuda/cuda_target_info.h"
#include "targets/cuda/intrinsics.h"

namespace tile_ir::cuda {
namespace {

#define SKIP_WITHOUT_NVRTC()                                        \
  if (absl::Status available = NvrtcAvailable(); !available.ok()) { \
    GTEST_SKIP() << available.message();                            \
  }

TEST(PtxasReportTest, RegistersPerKernel) {
  constexpr char kLog[] =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'first' for 'sm_80'\n"
      "ptxas info    : Function properties for first\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 1 barriers, 380 bytes cmem[0]\n"
      "ptxas info    : Compiling entry function 'second' for 'sm_80'\n"
      "ptxas info    : Used 8 registers, 360 bytes cmem[0]\n";
  std::map<std::string, int> registers = ParsePtxasRegisters(kLog);
  EXPECT_EQ(registers, (std::map<std::string, int>{{"first", 40}, {"second", 8}}));
  EXPECT_TRUE(ParsePtxasRegisters("no report here").empty());
}

class GoldenKernelsTest : public testing::TestWithParam<std::string> {};

TEST_P(GoldenKernelsTest, CompileForEveryArchitecture) {
  SKIP_WITHOUT_NVRTC();
  RegisterCudaLibraryIntrinsics();
  const std::string path = "testdata/targets/cuda/" + GetParam();
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  absl::StatusOr<Module> module = text::ParseModule(text.str(), path);
  ASSERT_TRUE(module.ok()) << module.status();
  for (const std::string& arch : KnownCudaArchs()) {
    CudaCodegenOptions options;
    options.arch = arch;
    absl::StatusOr<std::string> source = EmitCudaSource(*module, options);
    ASSERT_TRUE(source.ok()) << source.status();
    absl::StatusOr<NvrtcOutput> output = CompileWithNvrtc(*source, GetParam(), {.arch = arch});
    ASSERT_TRUE(output.ok()) << output.status() << "\n" << *source;
    EXPECT_FALSE(output->cubin.empty());
    EXPECT_TRUE(absl::StrContains(output->ptx, ".entry")) << arch;
    for (const Kernel& kernel : module->kernels) {
      EXPECT_TRUE(output->registers.count(kernel->name)) << kernel->name << "\n" << output->log;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(HandWritten, GoldenKernelsTest,
                         testing::Values("elementwise.tile", "gemm.tile", "reduction.tile",
                                         "vector.tile"),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param.substr(0, info.param.find('.'));
                         });

TEST(NvrtcCompilerTest, LibraryIntrinsicsCompile) {
  SKIP_WITHOUT_NVRTC();
  RegisterCudaLibraryIntrinsics();
  absl::StatusOr<Module> module = text::ParseModule(R"(ir_version 1;
producer "test" "1";

kernel stage<M: i32>(X: f16[M, 64], W: f32[M, 8], H: f16[M, 2], Y: f16[M, 64])
    grid(bx: M) threads(8) {
  alloc tile: shared f16[64] offset(0);
  alloc words: shared f32[8] offset(128);
  alloc pair: shared f16[2] offset(160);
  for tx in 0 +: 8 thread_bound(x) {
    eval cuda.cp_async_16(tile[tx * 8], X[bx, tx * 8], bx < M);
    eval cuda.cp_async_8(words[tx / 2 * 2], W[bx, tx / 2 * 2], tx % 2 == 0);
    eval cuda.cp_async_4(pair[0], H[bx, 0], tx == 0);
    eval async_commit();
    eval async_wait(0);
    barrier(block);
    Y[bx, tx] = tile[63 - tx] + cast<f16>(words[tx]) + pair[1];
  }
}
)",
                                                    "stage.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::string> source = EmitCudaSource(*module);
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_TRUE(
      absl::StrContains(*source, "tl::cp_async_16(&tile[tx * 8], &X[bx * 64 + tx * 8], bx < M);"))
      << *source;
  for (const std::string& arch : KnownCudaArchs()) {
    absl::StatusOr<NvrtcOutput> output = CompileWithNvrtc(*source, "stage.cu", {.arch = arch});
    ASSERT_TRUE(output.ok()) << output.status();
    EXPECT_TRUE(absl::StrContains(output->ptx, "cp.async.cg.shared.global")) << arch;
  }
}

TEST(NvrtcCompilerTest, ErrorsCarryTheLog) {
  SKIP_WITHOUT_NVRTC();
  absl::StatusOr<NvrtcOutput> output = CompileWithNvrtc(
      "#include \"tl/common.cuh\"\nextern \"C\" __global__ void k() { undeclared(); }\n",
      "broken.cu", {.arch = "sm_80"});
  ASSERT_FALSE(output.ok());
  EXPECT_EQ(output.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(
      absl::StrContains(output.status().message(), "could not compile 'broken.cu' for sm_80"))
      << output.status();
  EXPECT_TRUE(absl::StrContains(output.status().message(), "undeclared")) << output.status();
}

TEST(NvrtcCompilerTest, VirtualArchitectureGivesPtxOnly) {
  SKIP_WITHOUT_NVRTC();
  absl::StatusOr<NvrtcOutput> output =
      CompileWithNvrtc("extern \"C\" __global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n",
                       "ptx.cu", {.arch = "compute_90a"});
  ASSERT_TRUE(output.ok()) << output.status();
  EXPECT_TRUE(output->cubin.empty());
  EXPECT_TRUE(absl::StrContains(output->ptx, ".target sm_90a")) << output->ptx;
}

TEST(NvrtcCompilerTest, Version) {
  SKIP_WITHOUT_NVRTC();
  absl::StatusOr<std::string> version = NvrtcVersion();
  ASSERT_TRUE(version.ok()) << version.status();
  EXPECT_TRUE(absl::StartsWith(*version, "13.")) << *version;
}

}  // namespace
}  // namespace tile_ir::cuda
