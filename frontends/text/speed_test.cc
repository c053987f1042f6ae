// A module of 100,000 statements parses and prints in linear time: well under
// a second in an optimized build (-c opt), where the bound is enforced.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "tile_ir/printer.h"

namespace tile_ir::text {
namespace {

// 1,000 loops of 100 statements each (names are declared once per kernel).
std::string LargeModule() {
  std::string text =
      "ir_version 1;\nproducer \"bench\" \"1\";\n\n"
      "kernel big<N: i32>(A: f32[N], B: f32[N])\n    grid(bx: ceildiv(N, 128)) threads(128) {\n"
      "  alloc acc: local f32[128];\n";
  text.reserve(8 << 20);
  for (int loop = 0; loop < 1000; ++loop) {
    absl::StrAppend(&text, "  for it", loop, " in 0 +: 128 serial {\n", "    let t", loop,
                    ": f32 = A[bx * 128 + it", loop, "] * 0.5;\n");
    for (int stmt = 0; stmt < 97; ++stmt) {
      absl::StrAppend(&text, "    acc[it", loop, "] = acc[it", loop, "] + t", loop, " * B[(it",
                      loop, " + ", stmt, ") % 128] - exp2(1.5);\n");
    }
    absl::StrAppend(&text, "    barrier(block);\n  }\n");
  }
  text += "}\n";
  return text;
}

TEST(SpeedTest, HundredThousandStatementsParseAndPrintQuickly) {
  std::string text = LargeModule();
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<Module> module = ParseModule(text, "big.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  std::string printed = Print(*module);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(printed, text);
  RecordProperty("parse_and_print_seconds", std::to_string(seconds));
  std::printf("parse + print of %zu bytes: %.3f s\n", text.size(), seconds);
#ifdef NDEBUG
  EXPECT_LT(seconds, 1.0);
#endif
}

}  // namespace
}  // namespace tile_ir::text
