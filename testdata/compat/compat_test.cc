// Every frozen .tilepb under testdata/compat/v<N>/ still reads, and prints exactly as its
// .expected.tile says. The files are never regenerated, only added to, one folder per
// released ir_version, so a reader that stops understanding an old module fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "absl/strings/str_cat.h"
#include "tile_ir/module.h"
#include "tile_ir/printer.h"
#include "tile_ir/serialization.h"

namespace tile_ir {
namespace {

namespace fs = std::filesystem;

const char kCompatDir[] = "testdata/compat";

std::string ReadBytes(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  EXPECT_TRUE(file.good()) << path;
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

// Strips ".tilepb" or ".expected.tile"; empty for other files.
std::string Stem(const fs::path& path) {
  std::string name = path.filename().string();
  for (const std::string suffix : {".tilepb", ".expected.tile"}) {
    if (name.size() > suffix.size() && name.ends_with(suffix)) {
      return name.substr(0, name.size() - suffix.size());
    }
  }
  return "";
}

TEST(CompatTest, EveryReleasedVersionHasFrozenModules) {
  for (int64_t version = 1; version <= kIrVersion; ++version) {
    fs::path dir = fs::path(kCompatDir) / absl::StrCat("v", version);
    ASSERT_TRUE(fs::is_directory(dir)) << dir << " is missing";
    int modules = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() == ".tilepb") ++modules;
    }
    // write_compat_files freezes there the samples that need this version, at least one.
    EXPECT_GE(modules, 1) << dir;
  }
}

// A version's folder holds what that version wrote: the oldest version each module needs
// (version.h), and at least one module that needs the folder's own version.
TEST(CompatTest, EachVersionFolderHoldsAModuleOfThatVersion) {
  for (int64_t version = 1; version <= kIrVersion; ++version) {
    fs::path dir = fs::path(kCompatDir) / absl::StrCat("v", version);
    int64_t newest = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() != ".tilepb") continue;
      absl::StatusOr<Module> module = ReadModuleProto(ReadBytes(entry.path()), "frozen");
      ASSERT_TRUE(module.ok()) << entry.path() << ": " << module.status();
      EXPECT_LE(module->ir_version, version) << entry.path();
      newest = std::max(newest, module->ir_version);
    }
    EXPECT_EQ(newest, version) << dir;
  }
}

TEST(CompatTest, FrozenModulesPrintTheirExpectedText) {
  int checked = 0;
  for (const auto& version_dir : fs::directory_iterator(kCompatDir)) {
    if (!version_dir.is_directory()) continue;
    for (const auto& entry : fs::directory_iterator(version_dir.path())) {
      const fs::path& path = entry.path();
      std::string stem = Stem(path);
      ASSERT_FALSE(stem.empty()) << path << " is neither a .tilepb nor an .expected.tile";
      fs::path tilepb = version_dir.path() / (stem + ".tilepb");
      fs::path expected = version_dir.path() / (stem + ".expected.tile");
      ASSERT_TRUE(fs::exists(tilepb) && fs::exists(expected)) << stem << " lacks its pair";
      if (path != tilepb) continue;
      absl::StatusOr<Module> module = ReadModuleProto(ReadBytes(tilepb), tilepb.string());
      ASSERT_TRUE(module.ok()) << module.status();
      EXPECT_EQ(Print(*module), ReadBytes(expected)) << tilepb;
      ++checked;
    }
  }
  EXPECT_GE(checked, 3);
}

}  // namespace
}  // namespace tile_ir
