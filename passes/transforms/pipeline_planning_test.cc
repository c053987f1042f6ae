#include "passes/transforms/pipeline_planning.h"

#include "gtest/gtest.h"
#include "passes/pass/target_info.h"
#include "passes/testing/fake_targets.h"
#include "passes/testing/ir_test_util.h"

namespace tile_ir::passes {
namespace {

using testing::ParseOrDie;
using testing::PrintVerified;

const TargetInfo& Target(std::string_view name) {
  testing::RegisterFakeIntrinsics();
  return **testing::FindFakeTarget(name);
}

std::string Planned(std::string_view kernel_text, std::string_view target, bool* changed) {
  Module module = ParseOrDie(kernel_text);
  *changed = PlanPipelines(module, Target(target));
  return PrintVerified(module);
}

constexpr char kGemm[] = R"(
kernel k(A: f16[64, 256], B: f16[256, 64], C: f32[64, 64]) grid(bx: 1) threads(128) {
  alloc A_s: shared f16[64, 32];
  alloc B_s: shared f16[32, 64];
  alloc C_l: fragment f32[64, 64];
  for k in 0 +: 8 pipelined(num_stages=3) {
    copy A[0 +: 64, k * 32 +: 32] -> A_s;
    gemm A_s, B_s -> C_l {transpose_a=false, transpose_b=false, policy=square, clear_accum=false};
    copy B[k * 32 +: 32, 0 +: 64] -> B_s;
  }
})";

TEST(PipelinePlanningTest, PutsCopiesIntoSharedAheadUnlessTheirTileIsUsedBefore) {
  bool changed = false;
  std::string out = Planned(kGemm, "test-gpu", &changed);
  EXPECT_TRUE(changed);
  EXPECT_NE(out.find("pipelined(num_stages=3, order=[0, 1, 2], stage=[0, 2, 2])"),
            std::string::npos)
      << out;
}

TEST(PipelinePlanningTest, KeepsExplicitSchedules) {
  bool changed = true;
  std::string out = Planned(R"(
kernel k(A: f16[64, 256]) grid(bx: 1) threads(128) {
  alloc A_s: shared f16[64, 32];
  for k in 0 +: 8 pipelined(num_stages=2, order=[1, 0], stage=[1, 1]) {
    copy A[0 +: 64, k * 32 +: 32] -> A_s;
    fill A_s = 0.0_f16;
  }
})",
                            "test-gpu", &changed);
  EXPECT_FALSE(changed);
  EXPECT_NE(out.find("order=[1, 0], stage=[1, 1]"), std::string::npos) << out;
}

TEST(PipelinePlanningTest, PlansNothingWithoutStagesCopiesOrAsyncCopies) {
  bool changed = true;
  Planned(kGemm, "test-cpu", &changed);
  EXPECT_FALSE(changed);
  Planned(R"(
kernel k(A: f16[64, 256]) grid(bx: 1) threads(128) {
  alloc A_s: shared f16[64, 32];
  for k in 0 +: 8 pipelined(num_stages=1) {
    copy A[0 +: 64, k * 32 +: 32] -> A_s;
  }
  for j in 0 +: 8 pipelined(num_stages=2) {
    fill A_s = 0.0_f16;
  }
})",
          "test-gpu", &changed);
  EXPECT_FALSE(changed);
}

TEST(PipelinePlanningTest, PlansNestedLoopsAndSingleStatementBodies) {
  bool changed = false;
  std::string out = Planned(R"(
kernel k(A: f16[64, 256]) grid(bx: 1) threads(128) {
  alloc A_s: shared f16[64, 32];
  for j in 0 +: 2 serial {
    for k in 0 +: 8 pipelined(num_stages=4) {
      copy A[0 +: 64, k * 32 +: 32] -> A_s;
    }
  }
})",
                            "test-gpu", &changed);
  EXPECT_TRUE(changed);
  EXPECT_NE(out.find("pipelined(num_stages=4, order=[0], stage=[0])"), std::string::npos) << out;
}

TEST(PipelinePlanningTest, PassRunsForTheTargetTheRunIsGiven) {
  PassInfo pass = PipelinePlanningPass();
  EXPECT_TRUE(pass.needs_target);
  Module module = ParseOrDie(kGemm);
  absl::StatusOr<PassOptions> gpu = PassOptions::Create(pass.name, pass.options, {});
  ASSERT_TRUE(gpu.ok());
  std::shared_ptr<const TargetInfo> target = *testing::FindFakeTarget("test-gpu");
  gpu->set_target(target.get());
  absl::StatusOr<bool> changed = RunPass(pass, module, *gpu);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
}

}  // namespace
}  // namespace tile_ir::passes
