// Every form takes the same modules (tile_ir/nesting_limit.h): modules nested exactly
// kMaxNestingDepth deep round-trip through text, .tilepb and JSON and survive the deepest
// recursion the tools have (the CPU pipeline with verification after each pass, and the CPU
// and CUDA code generators); one level deeper, every form refuses them with the same message.
#include "tile_ir/nesting_limit.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "frontends/io/module_io.h"
#include "targets/cpu/cpu_target_info.h"
#include "tile_ir/expr.h"
#include "tile_ir/printer.h"
#include "tile_ir/stmt.h"
#include "tools/tile_opt/linked_pipeline_targets.h"
#include "tools/tile_opt/tile_opt_main.h"
#include "tools/tile_translate/tile_translate_main.h"

namespace tile_ir::tools {
namespace {

constexpr int kLimit = kMaxNestingDepth;
constexpr io::ModuleFormat kForms[] = {io::ModuleFormat::kText, io::ModuleFormat::kProto,
                                       io::ModuleFormat::kJson};

std::string Repeat(std::string_view piece, int times) {
  std::string result;
  for (int i = 0; i < times; ++i) result.append(piece);
  return result;
}

// A kernel whose deepest node is at depth kLimit: the body is depth 1 and its store 2.
struct DeepKernel {
  std::string name;
  std::string body;
};

std::vector<DeepKernel> KernelsAtTheLimit() {
  std::string loops;
  constexpr int kLoops = 300;  // each loop and its block are two levels
  for (int i = 0; i < kLoops; ++i) absl::StrAppend(&loops, "for loop", i, " in 0 +: 1 serial {\n");
  return {
      // The shape of TileLang's unrolled sums: a long left-associated chain.
      {"chain", "A[0] = s" + Repeat(" + s", kLimit - 3) + ";\n"},
      {"parens",
       "A[0] = " + Repeat("s - (", kLimit - 4) + "s - s" + Repeat(")", kLimit - 4) + ";\n"},
      {"negations", "A[0] = " + Repeat("-(", kLimit - 3) + "s" + Repeat(")", kLimit - 3) + ";\n"},
      {"calls", "A[0] = " + Repeat("abs(", kLimit - 3) + "s" + Repeat(")", kLimit - 3) + ";\n"},
      {"loops", loops + "A[0] = s" + Repeat(" + s", kLimit - 2 * kLoops - 3) + ";\n" +
                    Repeat("}\n", kLoops)},
  };
}

std::string ModuleText(const std::vector<DeepKernel>& kernels) {
  std::string text = "ir_version 1;\nproducer \"t\" \"1\";\n";
  for (const DeepKernel& kernel : kernels) {
    absl::StrAppend(&text, "\nkernel ", kernel.name,
                    "<N: i32>(A: f32[N], s: f32) grid(bx: 1) threads(32) {\n", kernel.body, "}\n");
  }
  return text;
}

Module ParseOrDie(const std::string& text) {
  absl::StatusOr<Module> module = io::ReadModule(text, io::ModuleFormat::kText, "deep.tile");
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : Module();
}

// `module` with every kernel's body one block deeper.
Module OneLevelDeeper(const Module& module) {
  Module deeper = module;
  for (Kernel& kernel : deeper.kernels) {
    kernel = KernelNode::Make(kernel->name, kernel->dims, kernel->params, kernel->launch,
                              Seq::Make({kernel->body}), kernel->loc);
  }
  return deeper;
}

std::string TempPath(const std::string& name) {
  return std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
}

int RunTool(bool translate, std::vector<std::string> args, const std::string& stdin_text,
            std::string* out_text, std::string* err_text) {
  args.insert(args.begin(), translate ? "tile-translate" : "tile-opt");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  std::istringstream in(stdin_text);
  std::ostringstream out, err;
  int status = translate ? TileTranslateMain(static_cast<int>(argv.size()), argv.data(), out, err, targets::LinkedTargets())
                         : TileOptMain(static_cast<int>(argv.size()), argv.data(), in, out, err,
                                       LinkedPipelineTargets());
  *out_text = out.str();
  *err_text = err.str();
  return status;
}

class NestingLimitTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { (void)LinkedPipelineTargets(); }
};

TEST_F(NestingLimitTest, ModulesAtTheLimitRoundTripThroughEveryForm) {
  const Module module = ParseOrDie(ModuleText(KernelsAtTheLimit()));
  ASSERT_EQ(module.kernels.size(), 5u);
  const std::string printed = Print(module);
  for (io::ModuleFormat form : kForms) {
    SCOPED_TRACE(static_cast<int>(form));
    absl::StatusOr<Module> read = io::ReadModule(io::WriteModule(module, form), form, "deep");
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(Print(*read), printed);
    // And what was read prints to text that parses back.
    EXPECT_EQ(Print(ParseOrDie(Print(*read))), printed);
  }
}

TEST_F(NestingLimitTest, ModulesOnePastTheLimitAreRefusedByEveryFormAlike) {
  const std::string message = ": " + NestingTooDeepMessage();
  for (const DeepKernel& kernel : KernelsAtTheLimit()) {
    SCOPED_TRACE(kernel.name);
    const Module deeper = OneLevelDeeper(ParseOrDie(ModuleText({kernel})));
    for (io::ModuleFormat form : kForms) {
      SCOPED_TRACE(static_cast<int>(form));
      absl::StatusOr<Module> read = io::ReadModule(io::WriteModule(deeper, form), form, "deep");
      ASSERT_FALSE(read.ok());
      const std::string error(read.status().message());
      EXPECT_TRUE(absl::StartsWith(error, "deep")) << error;
      EXPECT_TRUE(absl::EndsWith(error, message)) << error;
    }
  }
}

// The chain kernel with its body the lone store itself, not a block holding it, and the store's
// value wrapped in `extra_negations` more negations.
Module BareBodyChain(int extra_negations) {
  Module module = ParseOrDie(ModuleText({KernelsAtTheLimit().front()}));
  Kernel& kernel = module.kernels.front();
  const auto& store = static_cast<const Store&>(*As<Seq>(kernel->body)->stmts.front());
  Expr value = store.value;
  for (int i = 0; i < extra_negations; ++i) value = Unary::Make(UnaryOp::kNeg, value);
  kernel =
      KernelNode::Make(kernel->name, kernel->dims, kernel->params, kernel->launch,
                       Store::Make(store.buffer, store.indices, value, store.loc()), kernel->loc);
  return module;
}

TEST_F(NestingLimitTest, ALoneBodyStatementCountsAsInTheBlockTheTextFormWrites) {
  // The text form has no body without a block, so the readers count one around it: a module
  // a printer makes a level deeper is still at the limit, and one level more is refused.
  const Module at_limit = BareBodyChain(0);
  const Module past_limit = BareBodyChain(1);
  for (io::ModuleFormat form : kForms) {
    SCOPED_TRACE(static_cast<int>(form));
    absl::StatusOr<Module> read = io::ReadModule(io::WriteModule(at_limit, form), form, "deep");
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(Print(*read), Print(at_limit));
    absl::StatusOr<Module> refused =
        io::ReadModule(io::WriteModule(past_limit, form), form, "deep");
    ASSERT_FALSE(refused.ok());
    EXPECT_TRUE(absl::EndsWith(refused.status().message(), ": " + NestingTooDeepMessage()))
        << refused.status();
  }
}

TEST_F(NestingLimitTest, TheCpuPipelineAndTheCodeGeneratorsTakeModulesAtTheLimit) {
  const std::string text = ModuleText(KernelsAtTheLimit());
  std::string out, err;
  ASSERT_EQ(
      RunTool(false, {"-", "--input-format=tile", "--target=cpu"},
              text, &out, &err),
      0)
      << err;
  EXPECT_TRUE(absl::StrContains(out, "kernel loops")) << out.substr(0, 500);

  const std::string path = TempPath("deep.tilepb");
  ASSERT_TRUE(
      io::WriteFile(path, io::WriteModule(ParseOrDie(text), io::ModuleFormat::kProto)).ok());
  for (const std::string target : {"cpu", "cuda:sm_80"}) {
    SCOPED_TRACE(target);
    EXPECT_EQ(RunTool(true, {path, "--target=" + target}, "", &out, &err), 0) << err;
    EXPECT_FALSE(out.empty());
  }
}

}  // namespace
}  // namespace tile_ir::tools
