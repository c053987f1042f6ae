// The CUDA TargetInfo: per-architecture facts, refusals naming the missing
// capability, pipeline strings, and registration under "cuda" and "cuda:<arch>".
#include "targets/cuda/cuda_target_info.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "absl/strings/match.h"
#include "passes/target_info.h"
#include "tile_ir/intrinsics.h"

namespace tile_ir::cuda {
namespace {

using passes::TileOpKind;

TEST(CudaTargetInfoTest, Facts) {
  CudaTargetInfo sm80("sm_80");
  CudaTargetInfo sm90("sm_90a", "cuda:sm_90a");
  EXPECT_EQ(sm80.name(), "cuda");
  EXPECT_EQ(sm90.name(), "cuda:sm_90a");
  EXPECT_EQ(sm80.arch(), "sm_80");
  EXPECT_EQ(sm80.warp_size(), 32);
  EXPECT_EQ(sm80.max_vector_bytes(), 16);
  EXPECT_TRUE(sm80.has_async_copy());
  EXPECT_EQ(sm80.max_shared_memory_bytes(), 163 * 1024);
  EXPECT_EQ(sm90.max_shared_memory_bytes(), 227 * 1024);
  Launch launch;
  launch.threads = {32, 4, 2};
  EXPECT_EQ(sm80.ThreadsExecutingBlock(launch), 256);
}

TEST(CudaTargetInfoTest, RefusesWhatItCannotGenerate) {
  CudaTargetInfo sm80("sm_80");
  CudaTargetInfo sm90("sm_90a");
  absl::Status fp8 = sm80.CheckTileOp(TileOpKind::kGemm, kF8E4M3);
  EXPECT_EQ(fp8.code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(absl::StrContains(fp8.message(), "cuda target (sm_80): gemm on f8e4m3 needs fp8"))
      << fp8;
  EXPECT_TRUE(sm90.CheckTileOp(TileOpKind::kGemm, kF8E5M2).ok());
  absl::Status i4 = sm90.CheckTileOp(TileOpKind::kGemm, kI4);
  EXPECT_TRUE(absl::StrContains(i4.message(), "gemm on i4 needs packed 4-bit")) << i4;
  EXPECT_EQ(sm90.CheckTileOp(TileOpKind::kReduce, kBool).code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(sm90.CheckTileOp(TileOpKind::kAtomicAdd, kI4).code(), absl::StatusCode::kUnimplemented);
  EXPECT_TRUE(sm80.CheckTileOp(TileOpKind::kAtomicAdd, kBF16).ok());
  EXPECT_TRUE(sm80.CheckTileOp(TileOpKind::kCopy, kI4).ok());
  EXPECT_TRUE(sm80.CheckTileOp(TileOpKind::kFill, kBool).ok());
}

TEST(CudaTargetInfoTest, PipelineNamesTheTarget) {
  EXPECT_EQ(DefaultCudaPipeline(),
            "simplify,rasterize-blocks,layout-inference{target=cuda},pipeline-planning{target="
            "cuda},inject-software-pipeline{target=cuda},pad-shared-rows,lower-tile-ops{target="
            "cuda},bound-predication,thread-binding{target=cuda},vectorize{target=cuda},async-"
            "copies{target=cuda},core-matrix-tiles,plan-shared-memory{target=cuda},insert-barriers{"
            "target=cuda},"
            "simplify,remove-dead-code");
}

TEST(CudaTargetInfoTest, Registration) {
  EXPECT_EQ(RegisterCudaTarget("sm_70").code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(RegisterCudaTarget("sm_80").ok());
  // The first registration decides what plain "cuda" means.
  ASSERT_TRUE(RegisterCudaTarget().ok());
  auto plain = passes::FindTarget("cuda");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ((*plain)->arch(), "sm_80");
  for (const std::string& arch : KnownCudaArchs()) {
    auto pinned = passes::FindTarget("cuda:" + arch);
    ASSERT_TRUE(pinned.ok()) << pinned.status();
    EXPECT_EQ((*pinned)->arch(), arch);
  }
  EXPECT_NE(FindIntrinsic("cuda.cp_async_16"), nullptr);
  for (const char* variant : {kWgmmaTargetName, kMmaTargetName}) {
    auto pinned = passes::FindTarget(variant);
    ASSERT_TRUE(pinned.ok()) << pinned.status();
    EXPECT_EQ((*pinned)->arch(), "sm_90a");
    EXPECT_EQ((*pinned)->name(), variant);
  }
}

TEST(CudaTargetInfoTest, TheEnvironmentVariablePinsHowSm90aRunsGemms) {
  auto lowers_for = [](const std::string& target) {
    return DefaultCudaPipeline("cuda:sm_90a").find("lower-tile-ops{target=" + target + "}") !=
           std::string::npos;
  };
  ASSERT_EQ(unsetenv(kWgmmaEnvironmentVariable), 0);
  EXPECT_TRUE(lowers_for("cuda:sm_90a"));
  ASSERT_EQ(setenv(kWgmmaEnvironmentVariable, "1", 1), 0);
  EXPECT_TRUE(lowers_for(kWgmmaTargetName));
  EXPECT_EQ(DefaultCudaPipeline("cuda:sm_80").find("wgmma"), std::string::npos);
  ASSERT_EQ(setenv(kWgmmaEnvironmentVariable, "0", 1), 0);
  EXPECT_TRUE(lowers_for(kMmaTargetName));
  // Anything else is ignored (with a warning on stderr).
  ASSERT_EQ(setenv(kWgmmaEnvironmentVariable, "yes", 1), 0);
  EXPECT_TRUE(lowers_for("cuda:sm_90a"));
  ASSERT_EQ(unsetenv(kWgmmaEnvironmentVariable), 0);
}

}  // namespace
}  // namespace tile_ir::cuda
