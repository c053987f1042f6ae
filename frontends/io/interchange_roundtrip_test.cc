// Every .tile file under testdata/ survives the interchange forms unchanged:
// text -> proto -> text and text -> JSON -> text print the same canonical text,
// and so does the text form with locations (which protobuf carries too).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "frontends/io/module_io.h"
#include "tile_ir/printer.h"

namespace tile_ir::io {
namespace {

std::vector<std::string> TileFiles() {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(
           "testdata", std::filesystem::directory_options::follow_directory_symlink)) {
    if (entry.is_regular_file() && entry.path().extension() == ".tile") {
      paths.push_back(entry.path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

// Golden-test files hold several modules split by "// -----" lines.
std::vector<std::string> SplitModules(const std::string& text) {
  std::vector<std::string> chunks(1);
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StripAsciiWhitespace(line) == "// -----") {
      chunks.emplace_back();
    } else {
      absl::StrAppend(&chunks.back(), line, "\n");
    }
  }
  return chunks;
}

TEST(InterchangeRoundTripTest, EveryTileFileSurvivesProtoAndJson) {
  std::vector<std::string> files = TileFiles();
  ASSERT_GT(files.size(), 10u) << "testdata/ should be in the test's runfiles";
  int modules = 0;
  for (const std::string& path : files) {
    absl::StatusOr<std::string> contents = ReadFile(path);
    ASSERT_TRUE(contents.ok()) << contents.status();
    for (const std::string& chunk : SplitModules(*contents)) {
      absl::StatusOr<Module> parsed = ReadModule(chunk, ModuleFormat::kText, path);
      ASSERT_TRUE(parsed.ok()) << parsed.status();
      ++modules;
      PrintOptions with_locs;
      with_locs.print_locs = true;
      const std::string canonical = Print(*parsed);
      const std::string located = Print(*parsed, with_locs);
      for (ModuleFormat form : {ModuleFormat::kProto, ModuleFormat::kJson}) {
        const std::string encoded = WriteModule(*parsed, form);
        absl::StatusOr<Module> decoded = ReadModule(encoded, form, path);
        ASSERT_TRUE(decoded.ok()) << path << ": " << decoded.status();
        EXPECT_EQ(Print(*decoded), canonical) << path;
        EXPECT_EQ(Print(*decoded, with_locs), located) << path;
      }
    }
  }
  EXPECT_GT(modules, 20);
}

}  // namespace
}  // namespace tile_ir::io
