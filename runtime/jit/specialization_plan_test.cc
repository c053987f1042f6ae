// The plan's rules on suite kernels: fragment-sizing dims always compiled in, static policies,
// divisibility classes up to the target's cap, and the pipeline prefix that replays them.
#include "runtime/jit/specialization_plan.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/op_suite.h"
#include "passes/pass/pass_manager.h"
#include "passes/transforms/all_passes.h"
#include "runtime/jit/testing/classing_target.h"
#include "tile_ir/printer.h"

namespace tile_ir::runtime::jit {
namespace {

using ::testing::ElementsAre;

using runtime::jit::testing::ClassingTarget;

Kernel Build(const std::string& name) {
  absl::StatusOr<Kernel> kernel = ops::FindOp(name)->build();
  EXPECT_TRUE(kernel.ok()) << kernel.status();
  return *kernel;
}

TEST(SpecializationPlanTest, FragmentSizingDimsAreCompiledInAndTheRestStaySymbolic) {
  const Kernel kernel = Build("rmsnorm_row_f16");
  absl::StatusOr<SpecializationPlan> plan = PlanSpecialization(*kernel, nullptr);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(plan->CompiledInNames(), ElementsAre("N"));
  EXPECT_TRUE(plan->compiled_in[0].sizes_fragment);
  EXPECT_TRUE(plan->compiled_in[0].source.has_value());
  EXPECT_TRUE(plan->classed.empty());
  EXPECT_TRUE(plan->PerCall());
  EXPECT_EQ(plan->Describe(), "at each call's values of N (they size fragments)");
  absl::StatusOr<SpecializedKernel> at =
      ApplySpecialization(*plan, kernel, {{"M", 7}, {"N", 1024}});
  ASSERT_TRUE(at.ok()) << at.status();
  EXPECT_EQ(at->constants, (std::map<std::string, int64_t>{{"N", 1024}}));
  ASSERT_EQ(at->kernel->dims.size(), 1u);
  EXPECT_EQ(at->kernel->dims[0]->name, "M");
  EXPECT_EQ(at->pipeline_prefix, "specialize-dims{values=\"N=1024\"}");

  absl::StatusOr<SpecializedKernel> missing = ApplySpecialization(*plan, kernel, {{"M", 7}});
  EXPECT_EQ(missing.status().message(),
            "kernel 'rmsnorm_row_f16': dim N sizes a fragment, so it is compiled in as a "
            "constant, and no value was given for it");
}

TEST(SpecializationPlanTest, AKernelWithoutSizingDimsOnATargetWithoutClassesIsOneBinary) {
  const Kernel kernel = Build("gemm_f16");
  absl::StatusOr<SpecializationPlan> plan = PlanSpecialization(*kernel, nullptr);
  ASSERT_TRUE(plan.ok());
  EXPECT_FALSE(plan->PerCall());
  EXPECT_EQ(plan->Describe(), "");
  absl::StatusOr<SpecializedKernel> at =
      ApplySpecialization(*plan, kernel, {{"M", 100}, {"N", 64}, {"K", 48}});
  ASSERT_TRUE(at.ok());
  EXPECT_EQ(at->kernel, kernel);  // the same node: nothing to compile differently
  EXPECT_EQ(at->pipeline_prefix, "");
}

TEST(SpecializationPlanTest, DynamicDimsCarryTheirClassesUpToTheTargetsCap) {
  const Kernel kernel = Build("gemm_f16");
  ClassingTarget target;
  absl::StatusOr<SpecializationPlan> plan = PlanSpecialization(*kernel, &target);
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->compiled_in.empty());
  EXPECT_THAT(plan->ClassedNames(), ElementsAre("M", "N", "K"));
  EXPECT_EQ(plan->max_divisor, 16);
  EXPECT_EQ(plan->Describe(), "for each call's divisibility of M, N, K by powers of two up to 16");
  absl::StatusOr<SpecializedKernel> at =
      ApplySpecialization(*plan, kernel, {{"M", 100}, {"N", 1000}, {"K", 333}});
  ASSERT_TRUE(at.ok()) << at.status();
  EXPECT_EQ(at->classes, (std::map<std::string, int64_t>{{"K", 1}, {"M", 4}, {"N", 8}}));
  EXPECT_THAT(at->requirements, ElementsAre("M % 4 == 0", "N % 8 == 0"));
  EXPECT_EQ(at->pipeline_prefix, "specialize-divisibility{values=\"M=4,N=8\",max=16}");
  EXPECT_EQ(at->kernel->dims.size(), 3u);
}

TEST(SpecializationPlanTest, StaticPoliciesCompileInEveryDimOrTheNamedOnes) {
  const Kernel kernel = Build("gemm_f16");
  ClassingTarget target;
  absl::StatusOr<SpecializationPlan> all =
      PlanSpecialization(*kernel, &target, {.all_static = true});
  ASSERT_TRUE(all.ok());
  EXPECT_THAT(all->CompiledInNames(), ElementsAre("M", "N", "K"));
  EXPECT_TRUE(all->classed.empty());
  EXPECT_EQ(all->Describe(), "at each call's values of M, N, K");
  absl::StatusOr<SpecializationPlan> named =
      PlanSpecialization(*kernel, &target, {.static_dims = {"K"}});
  ASSERT_TRUE(named.ok());
  EXPECT_THAT(named->CompiledInNames(), ElementsAre("K"));
  EXPECT_THAT(named->ClassedNames(), ElementsAre("M", "N"));
  absl::StatusOr<SpecializedKernel> at =
      ApplySpecialization(*named, kernel, {{"M", 128}, {"N", 96}, {"K", 64}});
  ASSERT_TRUE(at.ok()) << at.status();
  EXPECT_EQ(
      at->pipeline_prefix,
      "specialize-dims{values=\"K=64\"},specialize-divisibility{values=\"M=16,N=16\",max=16}");
  absl::StatusOr<SpecializationPlan> unknown =
      PlanSpecialization(*kernel, &target, {.static_dims = {"Q"}});
  EXPECT_EQ(unknown.status().message(), "kernel 'gemm_f16' has no dimension 'Q'");
}

// The prefix is the specialization: run as a pipeline on the generic kernel, it gives the same
// kernel, so tile-opt replays what a call compiled.
TEST(SpecializationPlanTest, ThePipelinePrefixReplaysTheSpecialization) {
  ClassingTarget target;
  for (const char* name : {"gemm_f16", "rmsnorm_row_f16"}) {
    SCOPED_TRACE(name);
    const Kernel kernel = Build(name);
    absl::StatusOr<SpecializationPlan> plan = PlanSpecialization(*kernel, &target);
    ASSERT_TRUE(plan.ok());
    absl::StatusOr<SpecializedKernel> at =
        ApplySpecialization(*plan, kernel, {{"M", 200}, {"N", 1024}, {"K", 72}});
    ASSERT_TRUE(at.ok()) << at.status();
    ASSERT_FALSE(at->pipeline_prefix.empty());
    absl::StatusOr<passes::PassManager> manager = passes::PassManager::Create(
        passes::BuiltinPassRegistry(), at->pipeline_prefix, passes::PassManagerOptions{});
    ASSERT_TRUE(manager.ok()) << manager.status();
    Module module{kIrVersion, "test", "0", {kernel}};
    ASSERT_TRUE(manager->Run(module).ok());
    EXPECT_EQ(Print(module), Print(Module{kIrVersion, "test", "0", {at->kernel}}));
  }
}

TEST(SpecializationPlanTest, SpecializeModuleAppliesThePlanToEachKernel) {
  ClassingTarget target;
  Module module{kIrVersion, "test", "0", {Build("gemm_f16"), Build("rmsnorm_row_f16")}};
  absl::StatusOr<Module> specialized =
      SpecializeModule(module, &target, {{"M", 64}, {"N", 2048}, {"K", 16}});
  ASSERT_TRUE(specialized.ok()) << specialized.status();
  EXPECT_EQ(specialized->kernels[0]->requirements.size(), 3u);
  EXPECT_EQ(specialized->kernels[1]->dims.size(), 1u);  // N compiled in, M classed
}

}  // namespace
}  // namespace tile_ir::runtime::jit
