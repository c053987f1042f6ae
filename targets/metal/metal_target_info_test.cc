// The Metal target's declared capabilities and the errors that name them.
#include "targets/metal/metal_target_info.h"
#include "targets/metal/metal_target.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "passes/pass/target_info.h"

namespace tile_ir::metal {
namespace {

using passes::TileOpKind;

TEST(MetalTargetInfoTest, DeclaresItsLimits) {
  absl::StatusOr<std::shared_ptr<const passes::TargetInfo>> target = MakeMetalTarget()->info();
  ASSERT_TRUE(target.ok());
  EXPECT_EQ((*target)->warp_size(), 32);
  EXPECT_EQ((*target)->max_shared_memory_bytes(), 32 * 1024);
  EXPECT_EQ((*target)->arch(), "msl3.1");
  EXPECT_FALSE((*target)->has_async_copy());
}

TEST(MetalTargetInfoTest, CapabilityErrorsNameOperationTargetAndCapability) {
  MetalTargetInfo metal;
  EXPECT_TRUE(metal.CheckTileOp(TileOpKind::kGemm, kF16).ok());
  EXPECT_TRUE(metal.CheckTileOp(TileOpKind::kGemm, kBF16).ok());
  EXPECT_TRUE(metal.CheckTileOp(TileOpKind::kAtomicAdd, kF32).ok());
  EXPECT_EQ(metal.CheckTileOp(TileOpKind::kCopy, kF64).message(),
            "metal target (msl3.1): copy on f64 needs 64-bit floats, which this target does "
            "not have");
  EXPECT_TRUE(absl::StrContains(
      metal.CheckTileOp(TileOpKind::kGemm, DataType(ScalarType::kF8E4M3)).message(), "fp8 types"));
  absl::Status atomic = metal.CheckTileOp(TileOpKind::kAtomicAdd, kF16);
  EXPECT_EQ(atomic.code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(atomic.message(), "atomic_add on f16 needs an atomic add"));
}

}  // namespace
}  // namespace tile_ir::metal
