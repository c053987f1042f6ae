// Every .tile file of the source tree under testdata/ is in //testdata:all_tile_files, so
// that the round-trip test reads it. Bazel 4 cannot list the packages below testdata/
// (native.subpackages() came with Bazel 6.3), so testdata/BUILD lists them by hand; this
// test finds the one forgotten by walking the source tree, which the runfile of
// testdata/BUILD links to, and comparing it with the runfiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <system_error>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "testdata/tile_files.h"

namespace tile_ir::testdata {
namespace {

namespace fs = std::filesystem;

// The folder of the package that `file` belongs to (the nearest one with a BUILD file),
// as a path from the workspace root, given the source tree's testdata/ folder.
std::string PackageOf(const fs::path& file, const fs::path& source) {
  fs::path dir = file.parent_path();
  while (dir != source && !fs::exists(dir / "BUILD") && !fs::exists(dir / "BUILD.bazel")) {
    dir = dir.parent_path();
  }
  return dir == source ? "testdata" : "testdata/" + fs::relative(dir, source).string();
}

TEST(AllTileFilesTest, EveryTileFileOfTheSourceTreeIsInTheRunfiles) {
  std::error_code error;
  fs::path source = fs::canonical("testdata/BUILD", error).parent_path();
  ASSERT_FALSE(error) << "testdata/BUILD is not in the runfiles: " << error.message();
  if (source == fs::canonical("testdata")) {
    GTEST_SKIP() << "the runfiles are copies, not links into the source tree: there is no "
                    "source tree to compare them with";
  }
  std::vector<std::string> runfiles = AllTileFiles();
  absl::flat_hash_set<std::string> listed(runfiles.begin(), runfiles.end());
  std::map<std::string, std::vector<std::string>> missing;  // by package
  int found = 0;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(source)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".tile") continue;
    ++found;
    std::string path = "testdata/" + fs::relative(entry.path(), source).string();
    if (!listed.contains(path)) missing[PackageOf(entry.path(), source)].push_back(path);
  }
  for (auto& [package, files] : missing) {
    std::sort(files.begin(), files.end());
    ADD_FAILURE() << files.size() << " .tile file(s) of " << package << "/ (the first is "
                  << files.front() << ") are not in //testdata:all_tile_files, so no test "
                  << "checks that they round-trip: give " << package
                  << "/BUILD a public filegroup `tile_files` over them and add \"//" << package
                  << ":tile_files\" to all_tile_files in testdata/BUILD";
  }
  // The walk must have seen the source tree, or this test checks nothing.
  EXPECT_GE(found, static_cast<int>(runfiles.size()));
  EXPECT_GE(found, 5);
}

}  // namespace
}  // namespace tile_ir::testdata
