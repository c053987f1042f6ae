// The CUDA TargetInfo: per-architecture facts, refusals naming the missing
// capability, pipeline strings, and registration under "cuda" and "cuda:<arch>".
#include "targets/cuda/cuda_target_info.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "absl/strings/match.h"
#include "frontends/text/parser.h"
#include "passes/pass/target_info.h"
#include "targets/cuda/cuda_target.h"
#include "tile_ir/intrinsics.h"

namespace tile_ir::cuda {
namespace {

using passes::TileOpKind;

TEST(CudaTargetInfoTest, Facts) {
  CudaTargetInfo sm80("sm_80");
  CudaTargetInfo sm90("sm_90a");
  EXPECT_EQ(sm80.name(), "cuda:sm_80");
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

// Divisibility classes only for kernels warp-specialize may split: a dynamic-shape add would
// gain nothing from them and compile once per class; a pipelined gemm keeps its TMA path.
TEST(CudaTargetInfoTest, DivisibilityClassesOnlyForKernelsThatSplit) {
  constexpr char kModule[] = R"(ir_version 1;
producer "test" "1";

kernel add<N: i32>(A: f32[N], B: f32[N], C: f32[N]) grid(bx: ceildiv(N, 256)) threads(256) {
  for i in 0 +: 256 parallel {
    if (bx * 256 + i < N) {
      C[bx * 256 + i] = A[bx * 256 + i] + B[bx * 256 + i];
    }
  }
}

kernel gemm<M: i32, N: i32, K: i32>(A: bf16[M, K], B: bf16[K, N], C: f32[M, N])
    grid(bx: ceildiv(N, 256), by: ceildiv(M, 128)) threads(256) {
  alloc A_s: shared bf16[128, 64];
  alloc B_s: shared bf16[64, 256];
  alloc C_l: fragment f32[128, 256];
  fill C_l = 0.0;
  for k in 0 +: ceildiv(K, 64) pipelined(num_stages=3) {
    copy A[by * 128 +: 128, k * 64 +: 64] -> A_s;
    copy B[k * 64 +: 64, bx * 256 +: 256] -> B_s;
    gemm A_s, B_s -> C_l {transpose_a=false, transpose_b=false, policy=square, clear_accum=false};
  }
  copy C_l -> C[by * 128 +: 128, bx * 256 +: 256];
}
)";
  absl::StatusOr<Module> module = text::ParseModule(kModule, "classes.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  const KernelNode& add = *module->kernels[0];
  const KernelNode& gemm = *module->kernels[1];
  CudaTargetInfo sm90("sm_90a", WgmmaUse::kSwizzledOperands, "cuda:sm_90a",
                      WarpSpecialization{.enabled = true});
  EXPECT_EQ(sm90.dim_divisibility_specialization(add), 1);
  EXPECT_EQ(sm90.dim_divisibility_specialization(gemm), 16);
  CudaTargetInfo unsplit("sm_90a", WgmmaUse::kSwizzledOperands, "cuda:sm_90a",
                         WarpSpecialization{.enabled = false});
  EXPECT_EQ(unsplit.dim_divisibility_specialization(gemm), 1);
  EXPECT_EQ(CudaTargetInfo("sm_80").dim_divisibility_specialization(gemm), 1);
}

TEST(CudaTargetInfoTest, OnePipelineForEveryArchitectureAndVariant) {
  EXPECT_EQ(DefaultCudaPipeline(),
            "simplify,longest-blocks-first,rasterize-blocks,unswitch-selects,layout-inference,"
            "pipeline-planning,warp-specialize,"
            "inject-software-pipeline,pad-shared-rows,lower-tile-ops,bound-predication,"
            "thread-binding,vectorize,async-copies,core-matrix-tiles,plan-shared-memory,"
            "insert-barriers,warp-roles,overlap-gemm-chains,simplify,remove-dead-code");
  for (const std::string& arch : KnownCudaArchs()) {
    EXPECT_EQ(MakeCudaTarget(arch)->DefaultPipeline(), DefaultCudaPipeline());
  }
  EXPECT_EQ(MakeCudaTarget("sm_90a", WgmmaUse::kNever)->DefaultPipeline(), DefaultCudaPipeline());
}

TEST(CudaTargetInfoTest, TheTargetNamesItsVariant) {
  EXPECT_EQ(MakeCudaTarget("sm_90a")->ToString(), "cuda:sm_90a");
  EXPECT_EQ(MakeCudaTarget("sm_90a", WgmmaUse::kWherePossible)->info()->name(),
            "cuda:sm_90a{gemm=wgmma}");
  EXPECT_EQ(MakeCudaTarget("sm_90a", WgmmaUse::kNever)->info()->name(), "cuda:sm_90a{gemm=mma}");
  EXPECT_EQ(MakeCudaTarget("sm_80")->info()->arch(), "sm_80");
  EXPECT_NE(FindIntrinsic("cuda.cp_async_16"), nullptr);
  EXPECT_EQ(CheckCudaArch("sm_70").code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tile_ir::cuda
