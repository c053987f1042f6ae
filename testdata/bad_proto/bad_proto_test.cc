// Every file of the bad-input corpus gives an error containing the text its MANIFEST line
// expects, and every file is listed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "tile_ir/serialization.h"

namespace tile_ir {
namespace {

const char kCorpus[] = "testdata/bad_proto";

std::string ReadBytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  EXPECT_TRUE(file.good()) << path;
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

// File name -> expected error substring.
std::map<std::string, std::string> ReadManifest() {
  std::map<std::string, std::string> expected;
  std::istringstream lines(ReadBytes(std::string(kCorpus) + "/MANIFEST"));
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> columns = absl::StrSplit(line, absl::MaxSplits('\t', 1));
    EXPECT_EQ(columns.size(), 2u) << "MANIFEST line without a tab: " << line;
    if (columns.size() == 2) expected[columns[0]] = columns[1];
  }
  return expected;
}

TEST(BadProtoTest, EveryFileGivesItsExpectedError) {
  std::map<std::string, std::string> expected = ReadManifest();
  ASSERT_GE(expected.size(), 10u);
  for (const auto& [name, substring] : expected) {
    std::string path = std::string(kCorpus) + "/" + name;
    absl::StatusOr<Module> module = ReadModuleProto(ReadBytes(path), path);
    ASSERT_FALSE(module.ok()) << name << " read without error";
    std::string message(module.status().message());
    EXPECT_TRUE(absl::StartsWith(message, path + ": ")) << message;
    EXPECT_TRUE(absl::StrContains(message, substring))
        << name << ": expected \"" << substring << "\" in \"" << message << "\"";
  }
}

TEST(BadProtoTest, EveryFileIsListed) {
  std::map<std::string, std::string> expected = ReadManifest();
  for (const auto& entry : std::filesystem::directory_iterator(kCorpus)) {
    if (entry.path().extension() != ".tilepb") continue;
    EXPECT_TRUE(expected.contains(entry.path().filename().string()))
        << entry.path() << " has no MANIFEST line";
  }
}

}  // namespace
}  // namespace tile_ir
