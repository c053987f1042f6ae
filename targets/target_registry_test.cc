// Resolving names against every linked family: canonical names, defaults,
// refusals that list what is accepted, replaced spellings, and each target's
// passes and pipeline resolving against its own registry.
#include "targets/target_registry.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "passes/pass/pass_manager.h"
#include "tile_ir/intrinsics.h"

namespace tile_ir::targets {
namespace {

std::string Canonical(std::string_view text) {
  absl::StatusOr<std::shared_ptr<const Target>> target = LinkedTargets().Resolve(text);
  if (!target.ok()) return std::string(target.status().message());
  return (*target)->ToString();
}

std::string Error(std::string_view text) {
  absl::StatusOr<std::shared_ptr<const Target>> target = LinkedTargets().Resolve(text);
  return target.ok() ? "resolved to " + (*target)->ToString()
                     : std::string(target.status().message());
}

TEST(TargetRegistryTest, CanonicalNames) {
  EXPECT_EQ(Canonical("cpu"), "cpu");
  EXPECT_EQ(Canonical("cuda"), "cuda:sm_90a");
  EXPECT_EQ(Canonical("cuda:sm_80"), "cuda:sm_80");
  EXPECT_EQ(Canonical("cuda:sm_90a{gemm=auto}"), "cuda:sm_90a");
  EXPECT_EQ(Canonical("cuda{gemm=wgmma}"), "cuda:sm_90a{gemm=wgmma}");
  EXPECT_EQ(Canonical("cuda:sm_90a{gemm=mma}"), "cuda:sm_90a{gemm=mma}");
  EXPECT_EQ(Canonical("hip"), "hip:gfx90a");
  EXPECT_EQ(Canonical("hip:gfx940"), "hip:gfx940");
  EXPECT_EQ(Canonical("metal"), "metal");
  // An integer option: one spelling per value, the default left out.
  EXPECT_EQ(Canonical("cuda{sms=132}"), "cuda:sm_90a");
  EXPECT_EQ(Canonical("cuda{sms=0114}"), "cuda:sm_90a{sms=114}");
  EXPECT_EQ(Canonical("cuda{persistent=on,sms=114}"), "cuda:sm_90a{persistent=on,sms=114}");
  EXPECT_EQ(Canonical("cuda{persistent=off}"), "cuda:sm_90a");
}

TEST(TargetRegistryTest, OneObjectPerCanonicalName) {
  EXPECT_EQ(LinkedTargets().Resolve("cuda")->get(), LinkedTargets().Resolve("cuda:sm_90a")->get());
  EXPECT_NE(LinkedTargets().Resolve("cuda")->get(),
            LinkedTargets().Resolve("cuda{gemm=mma}")->get());
}

TEST(TargetRegistryTest, RefusalsListWhatIsAccepted) {
  EXPECT_EQ(Error("rocm"), "unknown target 'rocm'; this program has: cpu, cuda, hip, metal");
  EXPECT_EQ(Error("cuda:sm_70"),
            "target 'cuda:sm_70': unknown cuda architecture 'sm_70'; known: sm_80, sm_90a");
  EXPECT_EQ(Error("cpu:znver3"),
            "target 'cpu:znver3': cpu takes no architecture (it compiles for the machine it "
            "runs on)");
  EXPECT_EQ(Error("cuda{gemm=fma}"),
            "target 'cuda{gemm=fma}': option 'gemm' takes auto | wgmma | mma, not 'fma'");
  EXPECT_EQ(Error("cuda{tiles=big}"),
            "target 'cuda{tiles=big}': unknown option 'tiles' of cuda; options: gemm, "
            "warp_specialize, persistent, sms, tma_store, cluster, pingpong, overlap");
  EXPECT_EQ(Error("cuda{sms=0}"),
            "target 'cuda{sms=0}': option 'sms' takes a whole number from 1 to 1024, not '0'");
  EXPECT_EQ(Error("cuda{sms=many}"),
            "target 'cuda{sms=many}': option 'sms' takes a whole number from 1 to 1024, not "
            "'many'");
  // sm_90a-only options, also written with their default value (the registry asks before it
  // leaves defaults out; on sm_90a a default goes unnamed, see CanonicalNames).
  for (const char* name :
       {"cuda:sm_80{sms=108}", "cuda:sm_80{persistent=on}", "cuda:sm_80{tma_store=off}",
        "cuda:sm_80{warp_specialize=on}", "cuda:sm_80{tma_store=on}", "cuda:sm_80{sms=132}"}) {
    EXPECT_TRUE(absl::StrContains(Error(name), "applies to sm_90a only")) << name;
  }
  EXPECT_EQ(Error("cuda:sm_80{cluster=2}"),
            "target 'cuda:sm_80{cluster=2}': {cluster=...} applies to sm_90a only, whose "
            "warp-specialized kernels' blocks can share loads in thread-block clusters");
  EXPECT_EQ(Error("cuda{tma_store=yes}"),
            "target 'cuda{tma_store=yes}': option 'tma_store' takes on | off, not 'yes'");
  EXPECT_EQ(Error("hip{gemm=mma}"),
            "target 'hip{gemm=mma}': unknown option 'gemm' of hip, which takes none");
  EXPECT_TRUE(absl::StrContains(Error("cuda:sm_80{gemm=wgmma}"), "only sm_90a has both"));
  EXPECT_EQ(Error("cuda:sm_80{overlap=on}"),
            "target 'cuda:sm_80{overlap=on}': {overlap=...} applies to sm_90a only, whose "
            "warp-specialized kernels' consumers issue gemms asynchronously");
  EXPECT_TRUE(absl::StrContains(Error("cuda:sm_80{gemm=auto}"), "only sm_90a has both"));
  EXPECT_EQ(Canonical("cuda:sm_90a{overlap=on,tma_store=on}"), "cuda:sm_90a");
  EXPECT_EQ(Error("cuda:sm_90a-wgmma"),
            "target 'cuda:sm_90a-wgmma' is now spelled 'cuda:sm_90a{gemm=wgmma}'");
  EXPECT_EQ(Error("cuda:sm_90a-mma"),
            "target 'cuda:sm_90a-mma' is now spelled 'cuda:sm_90a{gemm=mma}'");
}

TEST(TargetRegistryTest, StaleWgmmaEnvironmentIsRefused) {
  // Also for a name resolved before in this process.
  EXPECT_EQ(Canonical("cuda:sm_80"), "cuda:sm_80");
  setenv("TILE_CUDA_WGMMA", "1", 1);
  std::string error = Error("cuda:sm_80");
  unsetenv("TILE_CUDA_WGMMA");
  EXPECT_TRUE(absl::StrContains(error, "TILE_CUDA_WGMMA=1 is set")) << error;
  EXPECT_TRUE(absl::StrContains(error, "cuda:sm_90a{gemm=wgmma}")) << error;
  EXPECT_EQ(Canonical("cuda:sm_80"), "cuda:sm_80");
}

TEST(TargetRegistryTest, EveryTargetsPipelineResolvesAgainstItsPasses) {
  for (const char* name : {"cpu", "cuda:sm_80", "cuda:sm_90a", "cuda:sm_90a{gemm=wgmma}",
                           "hip:gfx90a", "hip:gfx940", "metal"}) {
    std::shared_ptr<const Target> target = *LinkedTargets().Resolve(name);
    EXPECT_FALSE(absl::StrContains(target->DefaultPipeline(), "target=")) << name;
    EXPECT_EQ(target->info()->name(), target->ToString()) << name;
    absl::StatusOr<passes::PassManager> manager = passes::PassManager::Create(
        target->PassRegistry(), target->DefaultPipeline(), {.target = target->info()});
    EXPECT_TRUE(manager.ok()) << name << ": " << manager.status();
    std::vector<std::pair<std::string, std::string>> fields = target->CacheFields();
    ASSERT_GE(fields.size(), 2u);
    EXPECT_EQ(fields[0], std::make_pair(std::string("target"), target->ToString()));
    EXPECT_EQ(fields[1].first, "pipeline");
  }
}

TEST(TargetRegistryTest, FamiliesRegisterTheirIntrinsics) {
  (void)LinkedTargets();
  EXPECT_NE(FindIntrinsic("cuda.cp_async_16"), nullptr);
  EXPECT_NE(FindIntrinsic("cuda.gemm_ss"), nullptr);
}

TEST(TargetRegistryTest, DescribeListsEverySpelling) {
  std::string text = LinkedTargets().Describe();
  EXPECT_TRUE(absl::StrContains(text, "  cuda[:sm_80|sm_90a][{KEY=VALUE,...}]\n")) << text;
  EXPECT_TRUE(absl::StrContains(text, "      gemm=auto|wgmma|mma: ")) << text;
  EXPECT_TRUE(absl::StrContains(text, "hip[:gfx90a|gfx940]")) << text;
  EXPECT_TRUE(absl::StrContains(text, "  metal\n")) << text;
}

// Issue 45: the listing printed one brace group per option ({gemm=...}{warp_specialize=...}),
// which the parser refuses. Every example it prints must resolve as written.
TEST(TargetRegistryTest, DescribePrintsExamplesTheParserAccepts) {
  std::string text = LinkedTargets().Describe();
  EXPECT_FALSE(absl::StrContains(text, "}][{")) << text;
  int examples = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (!absl::ConsumePrefix(&line, "      e.g. ")) continue;
    ++examples;
    absl::StatusOr<std::shared_ptr<const Target>> target =
        LinkedTargets().Resolve(std::string_view(line.data(), line.size()));
    EXPECT_TRUE(target.ok()) << line << ": " << target.status();
  }
  EXPECT_GT(examples, 0) << text;
  EXPECT_TRUE(absl::StrContains(text, "e.g. cuda:sm_90a{gemm=wgmma,")) << text;
}

}  // namespace
}  // namespace tile_ir::targets
