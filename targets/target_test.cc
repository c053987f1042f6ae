// Target::CompileKernel, the one compile every device and the kernel cache
// take: CUDA through NVRTC for the H200's architecture and Ampere's (skipped
// where NVRTC is missing; no GPU needed), with the source and PTX kept and the
// shared memory the launch needs; the CPU's object code, whose compile reads
// no source; and the errors, which name the target, the step and the kernel.
#include "targets/target.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "ops/op_suite.h"
#include "targets/cuda/nvrtc_compiler.h"
#include "targets/target_registry.h"

namespace tile_ir::targets {
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

kernel other(Y: f32[4]) grid(bx: 1) threads(1) {
  Y[0] = 1.0;
}
)";

Module TestModule() {
  absl::StatusOr<Module> module = text::ParseModule(kModule, "target_test.tile");
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : Module{};
}

std::shared_ptr<const Target> Resolve(const std::string& name) {
  absl::StatusOr<std::shared_ptr<const Target>> target = LinkedTargets().Resolve(name);
  EXPECT_TRUE(target.ok()) << target.status();
  return target.ok() ? *std::move(target) : nullptr;
}

class CudaCompileKernelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (absl::Status nvrtc = tile_ir::cuda::NvrtcAvailable(); !nvrtc.ok()) {
      GTEST_SKIP() << nvrtc.message();
    }
  }
};

TEST_F(CudaCompileKernelTest, ScaleCompilesForHopperAndAmpere) {
  for (const char* arch : {"sm_90a", "sm_80"}) {
    std::shared_ptr<const Target> target = Resolve(absl::StrCat("cuda:", arch));
    ASSERT_NE(target, nullptr);
    absl::StatusOr<CompiledKernel> compiled = target->CompileKernel(TestModule(), "scale");
    ASSERT_TRUE(compiled.ok()) << arch << ": " << compiled.status();
    EXPECT_EQ(compiled->kernel, "scale");
    EXPECT_EQ(compiled->binary.format, "cubin");
    EXPECT_EQ(compiled->binary.entry, "scale");
    EXPECT_EQ(compiled->binary.dynamic_shared_bytes, 0);
    EXPECT_THAT(compiled->binary.bytes, StartsWith("\177ELF"));
    // The source first, then what the compiler kept.
    ASSERT_EQ(compiled->binary.files.size(), 2u);
    EXPECT_EQ(compiled->binary.files[0].first, "cu");
    EXPECT_THAT(compiled->binary.files[0].second, HasSubstr("__global__"));
    EXPECT_EQ(compiled->binary.files[1].first, "ptx");
    EXPECT_THAT(compiled->binary.files[1].second, HasSubstr(".target " + std::string(arch)));
    // Only the requested kernel is lowered.
    ASSERT_EQ(compiled->lowered.kernels.size(), 1u);
    EXPECT_EQ(compiled->lowered.kernels[0]->name, "scale");
  }
}

// TileLang names every kernel `main`, which C++ reserves: the cubin's entry is a legal symbol
// derived from it, and everything else keeps the kernel's name.
TEST_F(CudaCompileKernelTest, AKernelNamedMainCompilesUnderALegalSymbol) {
  absl::StatusOr<Module> module = text::ParseModule(R"(ir_version 1;
producer "test" "1";

kernel main(Y: f32[4]) grid(bx: 1) threads(1) {
  Y[0] = 1.0;
}
)",
                                                    "main.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  for (const char* name : {"cuda:sm_90a", "cuda:sm_80"}) {
    std::shared_ptr<const Target> target = Resolve(name);
    ASSERT_NE(target, nullptr);
    absl::StatusOr<CompiledKernel> compiled = target->CompileKernel(*module, "main");
    ASSERT_TRUE(compiled.ok()) << name << ": " << compiled.status();
    EXPECT_EQ(compiled->kernel, "main");
    EXPECT_EQ(compiled->lowered.kernels[0]->name, "main");
    EXPECT_EQ(compiled->binary.entry, "tl_main_kernel");
    EXPECT_THAT(compiled->binary.files[0].second, HasSubstr(" tl_main_kernel(float* Y)"));
    EXPECT_THAT(compiled->binary.files[1].second, HasSubstr(".entry tl_main_kernel("));
  }
}

TEST_F(CudaCompileKernelTest, GemmNeedsSharedMemory) {
  const ops::OpCase* op = ops::FindOp("gemm_f16");
  ASSERT_NE(op, nullptr);
  absl::StatusOr<Kernel> kernel = op->build();
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::shared_ptr<const Target> target = Resolve("cuda:sm_90a");
  ASSERT_NE(target, nullptr);
  absl::StatusOr<CompiledKernel> compiled =
      target->CompileKernel(Module{1, "test", "1", {*kernel}}, "gemm_f16");
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_GT(compiled->binary.dynamic_shared_bytes, 0);
}

TEST(CompileKernelTest, ErrorsNameTheTargetStepAndKernel) {
  // 256 KiB of shared memory: more than sm_80's 163 KiB, refused while lowering
  // (before NVRTC is needed).
  absl::StatusOr<Module> module = text::ParseModule(R"(ir_version 1;
producer "test" "1";

kernel big(Y: f32[128]) grid(bx: 1) threads(128) {
  alloc S: shared f32[65536];
  for i in 0 +: 128 parallel {
    S[i] = 1.0;
    Y[i] = S[i];
  }
}
)",
                                                    "target_test.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  std::shared_ptr<const Target> target = Resolve("cuda:sm_80");
  ASSERT_NE(target, nullptr);
  absl::StatusOr<CompiledKernel> compiled = target->CompileKernel(*module, "big");
  ASSERT_FALSE(compiled.ok());
  EXPECT_THAT(std::string(compiled.status().message()),
              StartsWith("cuda:sm_80: lowering kernel 'big': "));
  EXPECT_EQ(target->CompileKernel(*module, "small").status(),
            absl::NotFoundError("no kernel named 'small' in the module (kernels: big)"));
}

TEST(CompileKernelTest, TheCpuCompilesObjectCodeWithoutEmittingSource) {
  std::shared_ptr<const Target> target = Resolve("cpu");
  ASSERT_NE(target, nullptr);
  EXPECT_FALSE(target->CompilesFromSource());
  absl::StatusOr<CompiledKernel> compiled = target->CompileKernel(TestModule(), "scale");
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_EQ(compiled->binary.format, "object");
  EXPECT_EQ(compiled->binary.entry, "scale_block");
  EXPECT_THAT(compiled->binary.bytes, StartsWith("\177ELF"));
  EXPECT_TRUE(compiled->binary.files.empty());
  ASSERT_EQ(compiled->lowered.kernels.size(), 1u);
  EXPECT_EQ(compiled->lowered.kernels[0]->name, "scale");
}

}  // namespace
}  // namespace tile_ir::targets
