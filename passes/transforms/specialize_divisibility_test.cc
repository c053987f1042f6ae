#include "passes/transforms/specialize_divisibility.h"

#include "gtest/gtest.h"
#include "passes/testing/ir_test_util.h"
#include "tile_ir/printer.h"
#include "tile_ir/verifier.h"

namespace tile_ir::passes {
namespace {

using testing::ParseOrDie;

TEST(DivisibilityClassTest, TheLargestPowerOfTwoUpToTheCap) {
  EXPECT_EQ(DivisibilityClass(520, 16), 8);
  EXPECT_EQ(DivisibilityClass(4096, 16), 16);
  EXPECT_EQ(DivisibilityClass(97, 16), 1);
  EXPECT_EQ(DivisibilityClass(-24, 16), 8);
  EXPECT_EQ(DivisibilityClass(0, 16), 16);
  EXPECT_EQ(DivisibilityClass(4096, 1), 1);
  EXPECT_EQ(DivisibilityClass(INT64_MIN, 16), 16);
}

constexpr char kKernel[] = R"(
kernel k<M: i32, N: i32, K: i32>(A: f32[M, K], B: f32[K, N])
    grid(bx: ceildiv(N, 32), by: M) threads(32) {
  require K % 4 == 0;
  alloc T: shared f32[32];
  copy B[0 +: 1, bx * 32 +: 32] -> T;
})";

TEST(SpecializeDivisibilityTest, EachDimGetsItsClassAsARequirementAndStaysSymbolic) {
  Module module = ParseOrDie(kKernel);
  absl::StatusOr<Kernel> specialized =
      SpecializeDivisibility(module.kernels[0], {{"M", 97}, {"N", 1000}, {"K", 4096}}, 16);
  ASSERT_TRUE(specialized.ok()) << specialized.status();
  module.kernels[0] = *specialized;
  ASSERT_TRUE(Verify(module).ok()) << Verify(module);
  EXPECT_EQ(Print(module), Print(ParseOrDie(R"(
kernel k<M: i32, N: i32, K: i32>(A: f32[M, K], B: f32[K, N])
    grid(bx: ceildiv(N, 32), by: M) threads(32) {
  require K % 4 == 0;
  require N % 8 == 0;
  require K % 16 == 0;
  alloc T: shared f32[32];
  copy B[0 +: 1, bx * 32 +: 32] -> T;
})")));
}

TEST(SpecializeDivisibilityTest, NothingToAddLeavesTheKernelItself) {
  Module module = ParseOrDie(kKernel);
  const Kernel& kernel = module.kernels[0];
  // M is odd, K's requirement already says 4, and L is no dim of this kernel.
  absl::StatusOr<Kernel> same =
      SpecializeDivisibility(kernel, {{"M", 97}, {"K", 12}, {"L", 64}}, 16);
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_EQ(*same, kernel);
  absl::StatusOr<Kernel> off = SpecializeDivisibility(kernel, {{"N", 1024}}, 1);
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_EQ(*off, kernel);
}

TEST(SpecializeDivisibilityTest, ACapThatIsNoPowerOfTwoIsRefused) {
  Module module = ParseOrDie(kKernel);
  absl::StatusOr<Kernel> bad = SpecializeDivisibility(module.kernels[0], {{"N", 1024}}, 12);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("power of two, got 12"), std::string::npos) << bad.status();
}

}  // namespace
}  // namespace tile_ir::passes
