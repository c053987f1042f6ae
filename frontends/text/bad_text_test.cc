// The diagnostics corpus: each testdata/bad_text/*.bad file starts with
// "// expected-error: <text>", and parsing it must fail with an error that
// names the file, a line and a column, and contains <text>.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "frontends/text/parser.h"

namespace tile_ir::text {
namespace {

constexpr char kExpectPrefix[] = "// expected-error: ";

std::vector<std::string> BadFiles() {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator("testdata/bad_text")) {
    if (entry.path().extension() == ".bad") paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

TEST(BadTextTest, EveryFileFailsWithItsExpectedDiagnostic) {
  std::vector<std::string> files = BadFiles();
  ASSERT_GE(files.size(), 15u);
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    std::ifstream file(path, std::ios::binary);
    std::stringstream contents;
    contents << file.rdbuf();
    std::string text = contents.str();
    ASSERT_TRUE(absl::StartsWith(text, kExpectPrefix)) << "the first line must be an expectation";
    std::string expected =
        text.substr(sizeof(kExpectPrefix) - 1, text.find('\n') - (sizeof(kExpectPrefix) - 1));

    absl::StatusOr<Module> parsed = ParseModule(text, path);
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    std::string message(parsed.status().message());
    EXPECT_TRUE(std::regex_search(message, std::regex("^" + path + R"(:\d+:\d+: error: )")))
        << message;
    EXPECT_TRUE(absl::StrContains(message, expected))
        << "message:  " << message << "\nexpected: " << expected;
  }
}

}  // namespace
}  // namespace tile_ir::text
