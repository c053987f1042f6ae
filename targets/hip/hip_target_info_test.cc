// The HIP target's declared capabilities and the errors that name them.
#include "targets/hip/hip_target_info.h"
#include "targets/hip/hip_target.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "frontends/text/parser.h"
#include "passes/pass/target_info.h"
#include "targets/hip/hip_lowering.h"

namespace tile_ir::hip {
namespace {

using passes::TileOpKind;

TEST(HipTargetInfoTest, EveryArchitecture) {
  for (const std::string& arch : KnownHipArchs()) {
    std::shared_ptr<const passes::TargetInfo> target = MakeHipTarget(arch)->info();
    EXPECT_EQ(target->name(), "hip:" + arch);
    EXPECT_EQ(target->arch(), arch);
    EXPECT_EQ(target->warp_size(), 64);
    EXPECT_EQ(target->max_shared_memory_bytes(), 64 * 1024);
    EXPECT_FALSE(target->has_async_copy());
  }
  EXPECT_TRUE(absl::StrContains(CheckHipArch("gfx1100").message(), "known: gfx90a, gfx940"));
}

TEST(HipTargetInfoTest, CapabilityErrorsNameOperationTargetAndCapability) {
  HipTargetInfo gfx90a("gfx90a");
  HipTargetInfo gfx940("gfx940");
  EXPECT_TRUE(gfx90a.CheckTileOp(TileOpKind::kGemm, kF16).ok());
  EXPECT_TRUE(gfx90a.CheckTileOp(TileOpKind::kGemm, kBF16).ok());
  EXPECT_TRUE(gfx90a.CheckTileOp(TileOpKind::kCopy, DataType(ScalarType::kI4)).ok());

  absl::Status fp8 = gfx90a.CheckTileOp(TileOpKind::kGemm, DataType(ScalarType::kF8E4M3));
  EXPECT_EQ(fp8.code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(fp8.message(),
            "hip target (gfx90a): gemm on f8e4m3 needs fp8 types (gfx90a has no fp8 "
            "instructions, HIP 5.2 no fp8 types), which this target does not have");
  EXPECT_TRUE(absl::StrContains(
      gfx940.CheckTileOp(TileOpKind::kCopy, DataType(ScalarType::kF8E5M2)).message(),
      "hip target (gfx940): copy on f8e5m2 needs fp8 types"));
  EXPECT_TRUE(
      absl::StrContains(gfx90a.CheckTileOp(TileOpKind::kGemm, DataType(ScalarType::kI4)).message(),
                        "packed 4-bit integer matrix arithmetic"));
  EXPECT_TRUE(absl::StrContains(gfx90a.CheckTileOp(TileOpKind::kReduce, kBool).message(),
                                "arithmetic on bool elements"));
}

TEST(HipTargetInfoTest, LoweringAnUnsupportedOperatorFailsNamingIt) {
  absl::StatusOr<Module> module = text::ParseModule(R"(ir_version 1;
producer "test" "1";

kernel fp8_gemm(A: f8e4m3[64, 64], B: f8e4m3[64, 64], C: f32[64, 64])
    grid(bx: 1) threads(128) {
  alloc A_s: shared f8e4m3[64, 64];
  alloc B_s: shared f8e4m3[64, 64];
  alloc C_l: fragment f32[64, 64];
  copy A[0 +: 64, 0 +: 64] -> A_s;
  copy B[0 +: 64, 0 +: 64] -> B_s;
  gemm A_s, B_s -> C_l {transpose_a=false, transpose_b=false, policy=square, clear_accum=true};
  copy C_l -> C[0 +: 64, 0 +: 64];
}
)",
                                                    "fp8.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<Module> lowered = LowerForHip(*module, "gfx940");
  ASSERT_FALSE(lowered.ok());
  EXPECT_EQ(lowered.status().code(), absl::StatusCode::kUnimplemented) << lowered.status();
  EXPECT_TRUE(absl::StrContains(lowered.status().message(), "fp8_gemm")) << lowered.status();
  EXPECT_TRUE(absl::StrContains(lowered.status().message(), "hip target (gfx940)"))
      << lowered.status();
  EXPECT_TRUE(absl::StrContains(lowered.status().message(), "fp8 types")) << lowered.status();
}

}  // namespace
}  // namespace tile_ir::hip
