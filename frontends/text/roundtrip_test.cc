// Every .tile file under testdata/ parses and prints back to the same text:
// print(parse(print(x))) == print(x). Files in testdata/text/ are also already
// canonical: printing them reproduces them, comment lines aside.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "frontends/text/parser.h"
#include "passes/testing/fake_targets.h"
#include "testdata/tile_files.h"
#include "tile_ir/printer.h"

namespace tile_ir::text {
namespace {

using ::tile_ir::testdata::AllTileFiles;
using ::tile_ir::testdata::ReadTextFile;
using ::tile_ir::testdata::SplitModules;

// The text without comment lines and without the blank lines that open it.
std::string WithoutComments(const std::string& text) {
  std::string result;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(absl::StripLeadingAsciiWhitespace(line), "//")) continue;
    if (result.empty() && line.empty()) continue;
    result.append(line.data(), line.size());
    result.push_back('\n');
  }
  while (absl::EndsWith(result, "\n\n")) result.pop_back();
  return result;
}

TEST(RoundTripTest, EveryTileFileUnderTestdataIsAFixedPoint) {
  // Golden tests of passes call the test targets' intrinsics (test_gpu.mm, ...).
  passes::testing::RegisterFakeIntrinsics();
  std::vector<std::string> files = AllTileFiles();
  int text_files = 0;
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    text_files += absl::StartsWith(path, "testdata/text/");
    for (const std::string& chunk : SplitModules(ReadTextFile(path))) {
      absl::StatusOr<Module> parsed = ParseModule(chunk, path);
      ASSERT_TRUE(parsed.ok()) << parsed.status();
      for (bool print_locs : {false, true}) {
        PrintOptions options;
        options.print_locs = print_locs;
        std::string printed = Print(*parsed, options);
        absl::StatusOr<Module> reparsed = ParseModule(printed, path);
        ASSERT_TRUE(reparsed.ok()) << reparsed.status() << "\n" << printed;
        EXPECT_EQ(Print(*reparsed, options), printed);
      }
    }
  }
  // The walk must have found the examples, or this test checks nothing.
  EXPECT_GE(text_files, 5);
}

TEST(RoundTripTest, TextExamplesAreCanonical) {
  for (const std::string& path : AllTileFiles()) {
    if (!absl::StartsWith(path, "testdata/text/")) continue;
    SCOPED_TRACE(path);
    std::string text = ReadTextFile(path);
    absl::StatusOr<Module> parsed = ParseModule(text, path);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    PrintOptions options;
    options.print_locs = absl::StrContains(text, " loc(");
    EXPECT_EQ(Print(*parsed, options), WithoutComments(text));
  }
}

}  // namespace
}  // namespace tile_ir::text
