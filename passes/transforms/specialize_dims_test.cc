#include "passes/transforms/specialize_dims.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "passes/testing/ir_test_util.h"
#include "passes/utils/stmt_simplifier.h"
#include "tile_ir/printer.h"
#include "tile_ir/verifier.h"

namespace tile_ir::passes {
namespace {

using testing::ParseOrDie;

constexpr char kKernel[] = R"(
kernel k<M: i32, N: i32>(A: f32[M, N], B: f32[M, N] strides[N, 1])
    grid(bx: ceildiv(N, 32), by: M) threads(32) {
  alloc T: shared f32[32];
  copy A[by +: 1, bx * 32 +: 32] -> T;
  copy T -> B[by +: 1, bx * 32 +: 32];
})";

TEST(SpecializeDimsTest, BoundDimsBecomeConstantsEverywhereAndLeaveTheSignature) {
  Module module = ParseOrDie(kKernel);
  absl::StatusOr<Kernel> specialized = SpecializeDims(module.kernels[0], {{"N", 4096}});
  ASSERT_TRUE(specialized.ok()) << specialized.status();
  module.kernels[0] = *specialized;
  ASSERT_TRUE(Verify(module).ok()) << Verify(module);
  EXPECT_EQ(Print(module), Print(ParseOrDie(R"(
kernel k<M: i32>(A: f32[M, 4096], B: f32[M, 4096] strides[4096, 1])
    grid(bx: ceildiv(4096, 32), by: M) threads(32) {
  alloc T: shared f32[32];
  copy A[by +: 1, bx * 32 +: 32] -> T;
  copy T -> B[by +: 1, bx * 32 +: 32];
})")));
}

// A tile wider than the tensor (a 64-wide tile over N = 20) is a ragged edge, which copies
// mask: with N constant the loop over tiles runs once, and once simplify has folded the tile's
// start the region [0, 64) of a dimension of 20 must still verify.
TEST(SpecializeDimsTest, TilesWiderThanTheTensorStayValidThroughSimplify) {
  Module module = ParseOrDie(R"(
kernel k<M: i32, N: i32>(A: f32[M, N], B: f32[M, N]) grid(by: M) threads(32) {
  alloc T: shared f32[64];
  for t in 0 +: ceildiv(N, 64) serial {
    copy A[by +: 1, t * 64 +: 64] -> T;
    copy T -> B[by +: 1, t * 64 +: 64];
  }
})");
  absl::StatusOr<Kernel> specialized = SpecializeDims(module.kernels[0], {{"N", 20}});
  ASSERT_TRUE(specialized.ok()) << specialized.status();
  module.kernels[0] = SimplifyKernel(*specialized);
  ASSERT_TRUE(Verify(module).ok()) << Verify(module);
  EXPECT_EQ(Print(module), Print(ParseOrDie(R"(
kernel k<M: i32>(A: f32[M, 20], B: f32[M, 20]) grid(by: M) threads(32) {
  alloc T: shared f32[64];
  copy A[by +: 1, 0 +: 64] -> T;
  copy T -> B[by +: 1, 0 +: 64];
})")));
}

TEST(SpecializeDimsTest, UnknownDimsAndValuesOutOfRangeAreRefused) {
  Module module = ParseOrDie(kKernel);
  absl::StatusOr<Kernel> unknown = SpecializeDims(module.kernels[0], {{"K", 1}});
  EXPECT_EQ(unknown.status().message(), "kernel 'k' has no dim 'K' to specialize (its dims: M, N)");
  absl::StatusOr<Kernel> too_big = SpecializeDims(module.kernels[0], {{"M", int64_t{1} << 40}});
  EXPECT_EQ(too_big.status().message(), "kernel 'k': dim 'M' is i32; 1099511627776 does not fit");
  // An empty or negative dimension is refused by name, not as IR that does not verify.
  for (int64_t bad : {int64_t{0}, int64_t{-3}}) {
    absl::StatusOr<Kernel> empty = SpecializeDims(module.kernels[0], {{"N", bad}});
    EXPECT_EQ(empty.status().message(),
              absl::StrCat("kernel 'k': dim 'N' = ", bad, "; a dimension is at least 1"));
  }
}

TEST(SpecializeDimsTest, RequirementsTheConstantsDecideAreCheckedAndDropped) {
  Module module = ParseOrDie(R"(
kernel k<M: i32, K: i32>(A: f32[M, K]) grid(bx: M) threads(32) {
  require K % 32 == 0;
  require M % 2 == 0 || K > 64;
  A[0, 0] = 1.0;
})");
  absl::StatusOr<Kernel> decided = SpecializeDims(module.kernels[0], {{"K", 96}});
  ASSERT_TRUE(decided.ok()) << decided.status();
  ASSERT_EQ((*decided)->requirements.size(), 0u) << Print(Module{kIrVersion, "t", "1", {*decided}});

  absl::StatusOr<Kernel> kept = SpecializeDims(module.kernels[0], {{"K", 32}});
  ASSERT_TRUE(kept.ok()) << kept.status();
  ASSERT_EQ((*kept)->requirements.size(), 1u);
  EXPECT_EQ(Print((*kept)->requirements[0].condition), "M % 2 == 0");

  absl::StatusOr<Kernel> broken = SpecializeDims(module.kernels[0], {{"K", 20}, {"M", 3}});
  EXPECT_EQ(broken.status().message(), "kernel 'k' requires K % 32 == 0, which K=20, M=3 breaks");
}

}  // namespace
}  // namespace tile_ir::passes
