// The CUDA device's compile step without a GPU: lowering, emission and NVRTC
// give a cubin for the H200's architecture and Ampere's, with the artifacts
// tile-run dumps and the shared memory the launch needs.
#include "runtime/cuda/cuda_compile.h"
#include "targets/cuda/cuda_target.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "frontends/text/parser.h"
#include "targets/cuda/nvrtc_compiler.h"
#include "ops/op_suite.h"

namespace tile_ir::runtime::cuda {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kModule[] = R"(ir_version 1;
producer "test" "1";

kernel scale<N: i32>(X: f32[N], Y: f32[N], alpha: f32) grid(bx: ceildiv(N, 128)) threads(128) {
  for i in 0 +: 128 parallel {
    if (bx * 128 + i < N) {
      Y[bx * 128 + i] = X[bx * 128 + i] * alpha;
    }
  }
}
)";

class CudaCompileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (absl::Status nvrtc = tile_ir::cuda::NvrtcAvailable(); !nvrtc.ok()) {
      GTEST_SKIP() << nvrtc.message();
    }
  }
};

TEST_F(CudaCompileTest, ScaleCompilesForHopperAndAmpere) {
  absl::StatusOr<Module> module = text::ParseModule(kModule, "cuda_compile_test.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  for (const char* arch : {"sm_90a", "sm_80"}) {
    absl::StatusOr<CudaKernelImage> image = CompileCudaKernel(*module, "scale", *tile_ir::cuda::MakeCudaTarget(arch));
    ASSERT_TRUE(image.ok()) << arch << ": " << image.status();
    EXPECT_EQ(image->entry, "scale");
    EXPECT_EQ(image->dynamic_shared_bytes, 0);
    EXPECT_THAT(image->cubin, StartsWith("\177ELF"));
    ASSERT_EQ(image->artifacts.size(), 3u);
    EXPECT_THAT(image->artifacts[0].contents, HasSubstr("__global__"));
    EXPECT_THAT(image->artifacts[1].contents, HasSubstr(".target " + std::string(arch)));
    EXPECT_EQ(image->artifacts[2].contents, image->cubin);
    ASSERT_EQ(image->lowered.kernels.size(), 1u);
    EXPECT_EQ(image->lowered.kernels[0]->name, "scale");
  }
}

TEST_F(CudaCompileTest, GemmNeedsSharedMemory) {
  const ops::OpCase* op = ops::FindOp("gemm_f16");
  ASSERT_NE(op, nullptr);
  absl::StatusOr<Kernel> kernel = op->build();
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  absl::StatusOr<CudaKernelImage> image =
      CompileCudaKernel(Module{1, "test", "1", {*kernel}}, "gemm_f16", *tile_ir::cuda::MakeCudaTarget("sm_90a"));
  ASSERT_TRUE(image.ok()) << image.status();
  EXPECT_GT(image->dynamic_shared_bytes, 0);
}

TEST_F(CudaCompileTest, ErrorsNameTheTargetStepAndKernel) {
  // 256 KiB of shared memory: more than sm_80's 163 KiB, refused while lowering.
  absl::StatusOr<Module> module = text::ParseModule(R"(ir_version 1;
producer "test" "1";

kernel big(Y: f32[128]) grid(bx: 1) threads(128) {
  alloc S: shared f32[65536];
  for i in 0 +: 128 parallel {
    S[i] = 1.0;
    Y[i] = S[i];
  }
}
)", "cuda_compile_test.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<CudaKernelImage> image =
      CompileCudaKernel(*module, "big", *tile_ir::cuda::MakeCudaTarget("sm_80"));
  ASSERT_FALSE(image.ok());
  EXPECT_THAT(std::string(image.status().message()),
              StartsWith("cuda:sm_80: lowering kernel 'big': "));
}

}  // namespace
}  // namespace tile_ir::runtime::cuda
