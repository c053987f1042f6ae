// The CPU TargetInfo: what it tells the generic passes, its registration and
// the tile operations it refuses.
#include "targets/cpu/cpu_target_info.h"
#include "targets/cpu/cpu_target.h"

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "passes/pass/target_info.h"
#include "targets/cpu/host_cpu.h"

namespace tile_ir::cpu {
namespace {

using passes::TileOpKind;

TEST(CpuTargetInfoTest, DescribesOneCoreRunningABlock) {
  CpuTargetInfo cpu;
  EXPECT_EQ(cpu.name(), "cpu");
  EXPECT_EQ(cpu.arch(), HostCpuName());
  EXPECT_FALSE(cpu.arch().empty());
  EXPECT_EQ(cpu.warp_size(), 1);
  Launch launch;
  launch.threads = {128, 2};
  EXPECT_EQ(cpu.ThreadsExecutingBlock(launch), 1);
  EXPECT_EQ(cpu.max_shared_memory_bytes(), 1 << 20);
  EXPECT_FALSE(cpu.has_async_copy());
  EXPECT_TRUE(absl::StartsWith(DefaultCpuPipeline(), "simplify,rasterize-blocks,"));
  EXPECT_FALSE(absl::StrContains(DefaultCpuPipeline(), "target="));
}

TEST(CpuTargetInfoTest, VectorWidthFollowsHostFeatures) {
  std::string features = HostCpuFeatures();
  int expected = absl::StrContains(features, "+avx512f,") ? 64
                 : absl::StrContains(features, "+avx2,")  ? 32
                                                          : 16;
  EXPECT_EQ(CpuTargetInfo().max_vector_bytes(), expected);
  // Sorted and signed: usable as a cache key.
  EXPECT_EQ(features, HostCpuFeatures());
  EXPECT_TRUE(absl::StrContains(features, "+sse2")) << features;
}

TEST(CpuTargetInfoTest, EveryOpOnEveryNumericDtype) {
  CpuTargetInfo cpu;
  for (TileOpKind op : {TileOpKind::kCopy, TileOpKind::kGemm, TileOpKind::kFill,
                        TileOpKind::kReduce, TileOpKind::kAtomicAdd, TileOpKind::kCumsum}) {
    for (DataType dtype :
         {kF64, kF32, kF16, kBF16, kF8E4M3, kF8E5M2, kI64, kI32, kI16, kI8, kU8, kI4}) {
      EXPECT_TRUE(cpu.CheckTileOp(op, dtype).ok()) << cpu.CheckTileOp(op, dtype);
    }
  }
  EXPECT_TRUE(cpu.CheckTileOp(TileOpKind::kCopy, kBool).ok());
  EXPECT_TRUE(cpu.CheckTileOp(TileOpKind::kFill, kBool).ok());
}

TEST(CpuTargetInfoTest, ArithmeticOnBoolIsRefused) {
  absl::Status status = CpuTargetInfo().CheckTileOp(TileOpKind::kGemm, kBool);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(status.message(),
            "cpu target: gemm on bool needs arithmetic on bool elements, which the CPU target "
            "does not define");
  EXPECT_FALSE(CpuTargetInfo().CheckTileOp(TileOpKind::kCumsum, kBool).ok());
}

TEST(CpuTargetInfoTest, TheTargetOwnsOne) {
  std::shared_ptr<const passes::TargetInfo> info = MakeCpuTarget()->info();
  EXPECT_EQ(info->name(), "cpu");
  EXPECT_EQ(info->warp_size(), 1);
}

}  // namespace
}  // namespace tile_ir::cpu
