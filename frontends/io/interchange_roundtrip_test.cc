// Every .tile file under testdata/ survives the interchange forms unchanged:
// text -> proto -> text and text -> JSON -> text print the same canonical text,
// and so does the text form with locations (which protobuf carries too).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "frontends/io/module_io.h"
#include "passes/testing/fake_targets.h"
#include "testdata/tile_files.h"
#include "tile_ir/printer.h"

namespace tile_ir::io {
namespace {

using ::tile_ir::testdata::AllTileFiles;
using ::tile_ir::testdata::SplitModules;

TEST(InterchangeRoundTripTest, EveryTileFileSurvivesProtoAndJson) {
  // Golden tests of passes call the test targets' intrinsics (test_gpu.mm, ...).
  passes::testing::RegisterFakeIntrinsics();
  std::vector<std::string> files = AllTileFiles();
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
