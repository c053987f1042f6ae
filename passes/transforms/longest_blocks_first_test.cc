#include "passes/transforms/longest_blocks_first.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "gtest/gtest.h"

namespace tile_ir::passes {
namespace {

// The kernel `k<N>` with grid(bx: 8, by: 8) whose only loop's extent is `extent`.
Kernel WithExtent(const std::string& extent) {
  absl::StatusOr<Module> module =
      text::ParseModule(absl::StrCat("ir_version 1;\nproducer \"t\" \"1\";\n\n",
                                     "kernel k<N: i32>(O: f32[N]) grid(bx: 8, by: 8) threads(1) {\n"
                                     "  for k in 0 +: ",
                                     extent, " serial {\n    O[k] = 1.0;\n  }\n}\n"),
                        "t.tile");
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? module->kernels.at(0) : nullptr;
}

Trend TrendOfExtent(const std::string& extent) {
  Kernel kernel = WithExtent(extent);
  if (kernel == nullptr) return Trend::kUnknown;
  const For* loop = As<For>(kernel->body);
  if (const Seq* seq = As<Seq>(kernel->body)) loop = As<For>(seq->stmts.at(0));
  EXPECT_NE(loop, nullptr);
  return loop != nullptr ? TrendIn(loop->extent, kernel->launch.grid[0].var.get(), *kernel)
                         : Trend::kUnknown;
}

TEST(TrendInTest, FollowsTheArithmeticThatKeepsOrder) {
  EXPECT_EQ(TrendOfExtent("N"), Trend::kConstant);
  EXPECT_EQ(TrendOfExtent("by + 1"), Trend::kConstant);
  EXPECT_EQ(TrendOfExtent("bx + 1"), Trend::kNonDecreasing);
  EXPECT_EQ(TrendOfExtent("(bx + 1) * 64"), Trend::kNonDecreasing);
  EXPECT_EQ(TrendOfExtent("bx * N"), Trend::kNonDecreasing);  // a dimension is at least 1
  EXPECT_EQ(TrendOfExtent("ceildiv((bx + 1) * 128, 128)"), Trend::kNonDecreasing);
  EXPECT_EQ(TrendOfExtent("min(ceildiv(N, 128), (bx + 1) / 2)"), Trend::kNonDecreasing);
  EXPECT_EQ(TrendOfExtent("N - bx"), Trend::kNonIncreasing);
  EXPECT_EQ(TrendOfExtent("64 - bx * 2"), Trend::kNonIncreasing);
  EXPECT_EQ(TrendOfExtent("max(N - bx, 1)"), Trend::kNonIncreasing);
}

TEST(TrendInTest, IsUnknownWhereTheOrderIsNot) {
  EXPECT_EQ(TrendOfExtent("bx % 3"), Trend::kUnknown);
  EXPECT_EQ(TrendOfExtent("bx * bx"), Trend::kUnknown);
  EXPECT_EQ(TrendOfExtent("bx - bx / 2 * 2 + bx"), Trend::kUnknown);  // bx - (...) mixes
  EXPECT_EQ(TrendOfExtent("64 / (bx + 1)"), Trend::kUnknown);
  EXPECT_EQ(TrendOfExtent("bx * (N - 9)"), Trend::kUnknown);  // the factor's sign is unknown
}

TEST(LongestBlocksFirstTest, KeepsASwizzledKernelsOrder) {
  absl::StatusOr<Module> module = text::ParseModule(
      "ir_version 1;\nproducer \"t\" \"1\";\n\n"
      "kernel k(O: f32[64]) grid(bx: 8, by: 8) threads(1) swizzle(panel=2, order=row) {\n"
      "  for k in 0 +: bx serial {\n    O[k] = 1.0;\n  }\n}\n",
      "t.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  std::string why;
  absl::StatusOr<Kernel> result = LongestBlocksFirst(module->kernels[0], &why);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(*result, module->kernels[0]);
  EXPECT_EQ(why, "");
}

TEST(LongestBlocksFirstTest, NamesTheAxisItReverses) {
  std::string why;
  absl::StatusOr<Kernel> result = LongestBlocksFirst(WithExtent("bx + 1"), &why);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(why,
            "longest-blocks-first: kernel 'k': the trip count of loop 'k' grows with bx, so "
            "blocks walk bx backwards and the longest are launched first");
}

}  // namespace
}  // namespace tile_ir::passes
