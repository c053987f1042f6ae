#include "passes/pass/registry.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/transforms/all_passes.h"

namespace tile_ir::passes {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

PassInfo MakePass(std::string name, std::vector<OptionSpec> options = {}) {
  PassInfo info;
  info.name = std::move(name);
  info.description = "does nothing";
  info.options = std::move(options);
  info.run = [](Module&, const PassOptions&) -> absl::StatusOr<bool> { return false; };
  return info;
}

TEST(RegistryTest, FindsRegisteredPassesAndListsThemSorted) {
  PassRegistry registry;
  ASSERT_TRUE(registry.Register(MakePass("zeta")).ok());
  ASSERT_TRUE(registry.Register(MakePass("alpha-2")).ok());
  ASSERT_NE(registry.Find("zeta"), nullptr);
  EXPECT_EQ(registry.Find("zeta")->name, "zeta");
  EXPECT_EQ(registry.Find("beta"), nullptr);
  std::vector<std::string> names;
  for (const PassInfo* pass : registry.All()) names.push_back(pass->name);
  EXPECT_THAT(names, ElementsAre("alpha-2", "zeta"));
  EXPECT_THAT(registry.Names(), ElementsAre("alpha-2", "zeta"));
}

TEST(RegistryTest, RejectsDuplicatesAndMalformedPasses) {
  PassRegistry registry;
  ASSERT_TRUE(registry.Register(MakePass("a")).ok());
  EXPECT_EQ(registry.Register(MakePass("a")).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(registry.Register(MakePass("Lower_Ops")).message(), HasSubstr("kebab-case"));
  EXPECT_FALSE(registry.Register(MakePass("a--b")).ok());
  EXPECT_FALSE(registry.Register(MakePass("-a")).ok());
  EXPECT_FALSE(registry.Register(MakePass("a-")).ok());

  PassInfo no_run = MakePass("no-run");
  no_run.run = nullptr;
  EXPECT_THAT(registry.Register(no_run).message(), HasSubstr("no run function"));
  PassInfo both = MakePass("both");
  both.run_kernel = [](const PassOptions&) -> absl::StatusOr<KernelRewrite> {
    return [](const Kernel& kernel) -> absl::StatusOr<Kernel> { return kernel; };
  };
  EXPECT_THAT(registry.Register(both).message(),
              HasSubstr("has both a module and a kernel run function"));
  PassInfo two_lines = MakePass("two-lines");
  two_lines.description = "one\ntwo";
  EXPECT_THAT(registry.Register(two_lines).message(), HasSubstr("one-line description"));
}

TEST(RegistryTest, ChecksOptionSpecs) {
  PassRegistry registry;
  EXPECT_THAT(registry.Register(MakePass("p", {{"n", OptionType::kInt, "four", ""}})).message(),
              HasSubstr("default value expects an integer, got 'four'"));
  EXPECT_THAT(registry.Register(MakePass("p", {{"b", OptionType::kBool, "yes", ""}})).message(),
              HasSubstr("expects a boolean, got 'yes'"));
  EXPECT_THAT(registry
                  .Register(MakePass("p", {{"x", OptionType::kString, "", ""},
                                           {"x", OptionType::kString, "", ""}}))
                  .message(),
              HasSubstr("declared twice"));
  EXPECT_THAT(registry.Register(MakePass("p", {{"Big", OptionType::kString, "", ""}})).message(),
              HasSubstr("kebab-case"));
  EXPECT_TRUE(registry.Register(MakePass("p", {{"n", OptionType::kInt, "-3", ""}})).ok());
}

TEST(PassOptionsTest, FillsDefaultsAndParsesValues) {
  std::vector<OptionSpec> specs = {{"count", OptionType::kInt, "4", ""},
                                   {"verbose", OptionType::kBool, "false", ""},
                                   {"target", OptionType::kString, "cpu", ""}};
  absl::StatusOr<PassOptions> defaults = PassOptions::Create("p", specs, {});
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->GetInt("count"), 4);
  EXPECT_FALSE(defaults->GetBool("verbose"));
  EXPECT_EQ(defaults->GetString("target"), "cpu");

  absl::StatusOr<PassOptions> given =
      PassOptions::Create("p", specs, {{"count", "+12"}, {"verbose", "true"}, {"target", "cuda"}});
  ASSERT_TRUE(given.ok());
  EXPECT_EQ(given->GetInt("count"), 12);
  EXPECT_TRUE(given->GetBool("verbose"));
  EXPECT_EQ(given->GetString("target"), "cuda");
}

TEST(PassOptionsTest, ExplainsBadOptions) {
  std::vector<OptionSpec> specs = {{"max-iterations", OptionType::kInt, "4", ""},
                                   {"verbose", OptionType::kBool, "false", ""}};
  EXPECT_EQ(PassOptions::Create("simplify", specs, {{"max-iteration", "2"}}).status().message(),
            "unknown option 'max-iteration' of pass 'simplify'; did you mean 'max-iterations'?");
  EXPECT_EQ(PassOptions::Create("simplify", specs, {{"max-iterations", "abc"}}).status().message(),
            "option 'max-iterations' of pass 'simplify' expects an integer, got 'abc'");
  EXPECT_EQ(PassOptions::Create("simplify", specs, {{"verbose", "1"}}).status().message(),
            "option 'verbose' of pass 'simplify' expects a boolean, got '1'");
  EXPECT_FALSE(PassOptions::Create("p", specs, {{"max-iterations", "99999999999999999999"}}).ok());
  EXPECT_FALSE(PassOptions::Create("p", specs, {{"max-iterations", "-"}}).ok());
  EXPECT_EQ(PassOptions::Create("p", {}, {{"x", "1"}}).status().message(),
            "unknown option 'x' of pass 'p' (it has no options)");
}

TEST(PassOptionsDeathTest, ReadingAnUndeclaredOptionIsABug) {
  absl::StatusOr<PassOptions> options = PassOptions::Create("p", {}, {});
  ASSERT_TRUE(options.ok());
  EXPECT_DEATH(options->GetInt("missing"), "undeclared option 'missing'");
}

TEST(BuiltinPassesTest, RegistersEveryBuiltinPass) {
  const PassRegistry& registry = BuiltinPassRegistry();
  EXPECT_THAT(
      registry.Names(),
      ElementsAre("async-copies", "bound-predication", "inject-software-pipeline",
                  "insert-barriers", "layout-inference", "longest-blocks-first", "lower-tile-ops",
                  "padded-reductions", "pipeline-planning", "plan-shared-memory", "rasterize-blocks", "remove-dead-code",
                  "simplify", "specialize-dims", "specialize-divisibility", "thread-binding",
                  "unswitch-selects", "vectorize"));
  for (const PassInfo* pass : registry.All()) {
    EXPECT_FALSE(pass->description.empty()) << pass->name;
  }
  PassRegistry again;
  RegisterBuiltinPasses(again);
  EXPECT_EQ(again.Names(), registry.Names());
}

}  // namespace
}  // namespace tile_ir::passes
