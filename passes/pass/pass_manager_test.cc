#include "passes/pass/pass_manager.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/pass/reproducer.h"
#include "tile_ir/printer.h"

namespace tile_ir::passes {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kInput[] = R"(ir_version 1;
producer "test" "1";

kernel k(A: f32[128]) grid(bx: 1) threads(128) {
  for i in 0 +: 128 serial {
    A[i] = 0.0;
  }
}
)";

Module ParseOrDie(std::string_view text) {
  absl::StatusOr<Module> module = text::ParseModule(text, "input.tile");
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : Module{};
}

std::string TempPath(std::string_view name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return absl::StrCat(dir != nullptr ? dir : "/tmp", "/", std::string(name));
}

std::string ReadFile(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// A registry of test passes that record their runs in `log`.
class PassManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Add("record", "records that it ran", [this](Module&) -> absl::StatusOr<bool> {
      log_.push_back("record");
      return false;
    });
    Add("touch", "claims a change", [this](Module&) -> absl::StatusOr<bool> {
      log_.push_back("touch");
      return true;
    });
    // Stores to a variable that is defined nowhere: IR that does not verify.
    Add("break-ir", "breaks the IR", [](Module& module) -> absl::StatusOr<bool> {
      const Kernel& kernel = module.kernels[0];
      Buffer a = kernel->params[0].buffer;
      Stmt store = Store::Make(a, {Var::Make("undefined")}, Float(1.0));
      module.kernels[0] = kernel->WithBody(Seq::Make({store}));
      return true;
    });
    Add("fail", "reports an error",
        [](Module&) -> absl::StatusOr<bool> { return absl::FailedPreconditionError("boom"); });
    PassInfo with_options;
    with_options.name = "with-options";
    with_options.description = "reads its options";
    with_options.options = {{"count", OptionType::kInt, "1", "how many"},
                            {"label", OptionType::kString, "none", "a label"}};
    with_options.run = [this](Module&, const PassOptions& options) -> absl::StatusOr<bool> {
      log_.push_back(absl::StrCat(options.GetString("label"), "x", options.GetInt("count")));
      return false;
    };
    ASSERT_TRUE(registry_.Register(with_options).ok());
    // A kernel pass: its options are read once per run, its rewrite runs on every kernel, and
    // it fails on a kernel named 'bad'.
    PassInfo per_kernel;
    per_kernel.name = "per-kernel";
    per_kernel.description = "renames nothing, rebuilds kernels named 'k'";
    per_kernel.run_kernel = [this](const PassOptions&) -> absl::StatusOr<KernelRewrite> {
      log_.push_back("options");
      return [this](const Kernel& kernel) -> absl::StatusOr<Kernel> {
        log_.push_back(kernel->name);
        if (kernel->name == "bad") return absl::InvalidArgumentError("bad kernel");
        return kernel->name == "k" ? kernel->WithBody(kernel->body) : kernel;
      };
    };
    ASSERT_TRUE(registry_.Register(per_kernel).ok());
  }

  void Add(std::string name, std::string description,
           std::function<absl::StatusOr<bool>(Module&)> run) {
    PassInfo info;
    info.name = std::move(name);
    info.description = std::move(description);
    info.run = [run](Module& module, const PassOptions&) { return run(module); };
    ASSERT_TRUE(registry_.Register(info).ok());
  }

  PassManager Create(std::string_view pipeline, PassManagerOptions options = {}) {
    if (options.dump == nullptr) options.dump = &dump_;
    absl::StatusOr<PassManager> manager = PassManager::Create(registry_, pipeline, options);
    EXPECT_TRUE(manager.ok()) << manager.status();
    return *std::move(manager);
  }

  std::string CreateError(std::string_view pipeline, PassManagerOptions options = {}) {
    absl::StatusOr<PassManager> manager = PassManager::Create(registry_, pipeline, options);
    EXPECT_FALSE(manager.ok());
    return manager.ok() ? "" : std::string(manager.status().message());
  }

  PassRegistry registry_;
  std::vector<std::string> log_;
  std::ostringstream dump_;
};

TEST_F(PassManagerTest, RunsTheStepsInOrderWithTheirOptions) {
  PassManager manager = Create("record, with-options{label=a}, with-options{count=3,label=b}");
  Module module = ParseOrDie(kInput);
  ASSERT_TRUE(manager.Run(module).ok());
  EXPECT_THAT(log_, ElementsAre("record", "ax1", "bx3"));
  EXPECT_EQ(PrintPipeline(manager.pipeline()),
            "record,with-options{label=a},with-options{count=3,label=b}");
}

TEST_F(PassManagerTest, ExplainsBadPipelines) {
  EXPECT_EQ(CreateError("recrod"), "unknown pass 'recrod'; did you mean 'record'?");
  EXPECT_EQ(
      CreateError("nothing-like-it"),
      "unknown pass 'nothing-like-it' (registered passes: break-ir, fail, per-kernel, record, "
      "touch, with-options)");
  EXPECT_EQ(CreateError("with-options{cuont=2}"),
            "unknown option 'cuont' of pass 'with-options'; did you mean 'count'?");
  EXPECT_EQ(CreateError("with-options{count=abc}"),
            "option 'count' of pass 'with-options' expects an integer, got 'abc'");
  EXPECT_THAT(CreateError("record,"), HasSubstr("column 8: expected a pass name"));
  PassManagerOptions options;
  options.print_ir_before = "tuoch";
  EXPECT_EQ(CreateError("record", options),
            "cannot print the IR before it: unknown pass 'tuoch'; did you mean 'touch'?");
}

TEST_F(PassManagerTest, VerificationNamesThePassThatBrokeTheIr) {
  PassManager manager = Create("record,break-ir,record");
  Module module = ParseOrDie(kInput);
  absl::Status status = manager.Run(module);
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(std::string(status.message()),
              StartsWith("pass 'break-ir' produced IR that does not verify:"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("undefined"));
  EXPECT_THAT(log_, ElementsAre("record"));
}

TEST_F(PassManagerTest, VerificationCanBeTurnedOff) {
  PassManagerOptions options;
  options.verify_each = false;
  PassManager manager = Create("break-ir,record", options);
  Module module = ParseOrDie(kInput);
  EXPECT_TRUE(manager.Run(module).ok());
  EXPECT_THAT(log_, ElementsAre("record"));
}

TEST_F(PassManagerTest, RefusesAnInputThatDoesNotVerify) {
  Module module = ParseOrDie(kInput);
  PassManagerOptions unchecked;
  unchecked.verify_each = false;
  ASSERT_TRUE(Create("break-ir", unchecked).Run(module).ok());
  absl::Status status = Create("record").Run(module);
  EXPECT_THAT(std::string(status.message()),
              StartsWith("the input IR does not verify (before any pass ran)"));
  EXPECT_TRUE(log_.empty());
}

TEST_F(PassManagerTest, PassErrorsNameThePassAndKeepTheirCode) {
  Module module = ParseOrDie(kInput);
  absl::Status status = Create("record,fail,record").Run(module);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(), "pass 'fail' failed: boom");
}

constexpr char kThreeKernels[] = R"(ir_version 1;
producer "test" "1";

kernel j(A: f32[128]) grid(bx: 1) threads(128) {
  A[0] = 0.0;
}

kernel k(A: f32[128]) grid(bx: 1) threads(128) {
  A[0] = 0.0;
}

kernel bad(A: f32[128]) grid(bx: 1) threads(128) {
  A[0] = 0.0;
}
)";

TEST_F(PassManagerTest, MapsAKernelPassOverEveryKernel) {
  PassManagerOptions options;
  options.print_ir_after_change = true;
  Module module = ParseOrDie(kThreeKernels);
  module.kernels.pop_back();
  const Kernel j = module.kernels[0];
  const Kernel k = module.kernels[1];
  ASSERT_TRUE(Create("per-kernel", options).Run(module).ok());
  EXPECT_THAT(log_, ElementsAre("options", "j", "k"));
  EXPECT_EQ(module.kernels[0], j);
  EXPECT_NE(module.kernels[1], k);
  EXPECT_THAT(dump_.str(), StartsWith("// -----// IR after per-kernel (changed) //----- //\n"));
}

TEST_F(PassManagerTest, AKernelPassStopsAtTheFirstFailingKernel) {
  Module module = ParseOrDie(kThreeKernels);
  const Kernel k = module.kernels[1];
  absl::Status status = Create("per-kernel").Run(module);
  EXPECT_EQ(status.message(), "pass 'per-kernel' failed: bad kernel");
  EXPECT_THAT(log_, ElementsAre("options", "j", "k", "bad"));
  // The kernels before the failing one are replaced, as the pass left them.
  EXPECT_NE(module.kernels[1], k);
}

TEST_F(PassManagerTest, PrintsTheIrBeforeAPass) {
  PassManagerOptions options;
  options.print_ir_before = "touch";
  Module module = ParseOrDie(kInput);
  ASSERT_TRUE(Create("record,touch,record,touch", options).Run(module).ok());
  std::string header = "// -----// IR before touch //----- //\n";
  EXPECT_EQ(dump_.str(), header + Print(module) + header + Print(module));
}

TEST_F(PassManagerTest, PrintsTheIrAfterEveryPass) {
  PassManagerOptions options;
  options.print_ir_after_all = true;
  Module module = ParseOrDie(kInput);
  ASSERT_TRUE(Create("record,touch", options).Run(module).ok());
  EXPECT_EQ(dump_.str(), "// -----// IR after record (unchanged) //----- //\n" + Print(module) +
                             "// -----// IR after touch (changed) //----- //\n" + Print(module));
}

TEST_F(PassManagerTest, PrintsTheIrOnlyAfterAChange) {
  PassManagerOptions options;
  options.print_ir_after_change = true;
  Module module = ParseOrDie(kInput);
  ASSERT_TRUE(Create("record,touch,record", options).Run(module).ok());
  EXPECT_EQ(dump_.str(), "// -----// IR after touch (changed) //----- //\n" + Print(module));
}

TEST_F(PassManagerTest, TimingReportListsEveryPassAndTheTotal) {
  PassManagerOptions options;
  options.timing = true;
  PassManager manager = Create("record,touch", options);
  Module module = ParseOrDie(kInput);
  ASSERT_TRUE(manager.Run(module).ok());
  std::string report = manager.TimingReport();
  EXPECT_THAT(report, HasSubstr("wall time (s)"));
  EXPECT_THAT(report, HasSubstr("%  record\n"));
  EXPECT_THAT(report, HasSubstr("%  touch\n"));
  EXPECT_THAT(report, HasSubstr("%  (verifier)\n"));
  EXPECT_THAT(report, HasSubstr("100.0%  total\n"));
  EXPECT_TRUE(dump_.str().empty());
  EXPECT_EQ(Create("record").TimingReport(), "");
}

TEST_F(PassManagerTest, WritesAReproducerThatReplaysTheFailure) {
  std::string path = TempPath("reproducer.tile");
  PassManagerOptions options;
  options.reproducer_path = path;
  Module module = ParseOrDie(kInput);
  std::string before = Print(module, {.print_locs = true});
  absl::Status status = Create("touch,break-ir,with-options{label=\"a b\"}", options).Run(module);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("reproducer written to " + path));

  std::string reproducer = ReadFile(path);
  EXPECT_EQ(
      reproducer,
      "// tile-opt reproducer: --pass-pipeline='break-ir,with-options{label=\"a b\"}'\n" + before);
  absl::StatusOr<std::string> pipeline = ReadReproducerPipeline(reproducer);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  EXPECT_EQ(*pipeline, "break-ir,with-options{label=\"a b\"}");

  // Replaying the reproducer fails the same way, and its locations are the original ones.
  Module replayed = ParseOrDie(reproducer);
  EXPECT_EQ(Print(replayed, {.print_locs = true}), before);
  absl::Status again = Create(*pipeline).Run(replayed);
  EXPECT_THAT(std::string(again.message()),
              StartsWith("pass 'break-ir' produced IR that does not verify"));
}

TEST_F(PassManagerTest, WritesAReproducerWhenAPassFails) {
  std::string path = TempPath("failed.tile");
  PassManagerOptions options;
  options.reproducer_path = path;
  Module module = ParseOrDie(kInput);
  absl::Status status = Create("record,fail", options).Run(module);
  EXPECT_EQ(status.message(), "pass 'fail' failed: boom\nreproducer written to " + path);
  EXPECT_EQ(*ReadReproducerPipeline(ReadFile(path)), "fail");
}

TEST_F(PassManagerTest, SaysWhenTheReproducerCannotBeWritten) {
  PassManagerOptions options;
  options.reproducer_path = TempPath("no/such/dir/r.tile");
  Module module = ParseOrDie(kInput);
  absl::Status status = Create("fail", options).Run(module);
  EXPECT_THAT(std::string(status.message()), StartsWith("pass 'fail' failed: boom\n"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("could not write reproducer"));
}

TEST(ReproducerTest, ReadsOnlyReproducerHeaders) {
  EXPECT_EQ(*ReadReproducerPipeline("// tile-opt reproducer: --pass-pipeline='a,b{x=1}'\nrest"),
            "a,b{x=1}");
  EXPECT_EQ(*ReadReproducerPipeline("// tile-opt reproducer: --pass-pipeline=''\r\n"), "");
  EXPECT_FALSE(ReadReproducerPipeline("ir_version 1;\n").ok());
  EXPECT_FALSE(ReadReproducerPipeline("// tile-opt reproducer: --pass-pipeline='").ok());
  EXPECT_FALSE(ReadReproducerPipeline("// tile-opt reproducer: --pass-pipeline='a\n'").ok());
  EXPECT_THAT(std::string(ReadReproducerPipeline("").status().message()),
              HasSubstr("not a tile-opt reproducer"));
}

}  // namespace
}  // namespace tile_ir::passes
