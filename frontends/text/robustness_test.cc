// Damaged input never crashes the parser: every prefix of the examples and
// thousands of seeded byte flips parse or fail cleanly, and whatever parses
// prints to a fixed point.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "frontends/text/parser.h"
#include "tile_ir/printer.h"

namespace tile_ir::text {
namespace {

std::vector<std::string> ExampleTexts() {
  std::vector<std::string> texts;
  for (const auto& entry : std::filesystem::directory_iterator("testdata/text")) {
    if (entry.path().extension() != ".tile") continue;
    std::ifstream file(entry.path(), std::ios::binary);
    std::stringstream contents;
    contents << file.rdbuf();
    texts.push_back(contents.str());
  }
  return texts;
}

// Parses `text`; when it parses, its printed form must be a fixed point.
void ExpectCleanOutcome(const std::string& text) {
  absl::StatusOr<Module> parsed = ParseModule(text, "damaged.tile");
  if (!parsed.ok()) {
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(parsed.status().message().rfind("damaged.tile:", 0), 0u) << parsed.status();
    return;
  }
  std::string printed = Print(*parsed);
  absl::StatusOr<Module> reparsed = ParseModule(printed, "printed.tile");
  ASSERT_TRUE(reparsed.ok()) << reparsed.status() << "\nfrom:\n" << text;
  EXPECT_EQ(Print(*reparsed), printed);
}

TEST(RobustnessTest, EveryPrefixOfEveryExample) {
  std::vector<std::string> texts = ExampleTexts();
  ASSERT_FALSE(texts.empty());
  int parsed_prefixes = 0;
  for (const std::string& text : texts) {
    for (size_t length = 0; length <= text.size(); ++length) {
      std::string prefix = text.substr(0, length);
      SCOPED_TRACE(prefix);
      ExpectCleanOutcome(prefix);
      parsed_prefixes += ParseModule(prefix, "damaged.tile").ok();
      if (HasFatalFailure()) return;
    }
  }
  // A prefix that ends after a kernel is a whole module; make sure some were seen.
  EXPECT_GT(parsed_prefixes, 0);
}

TEST(RobustnessTest, SeededByteFlips) {
  std::vector<std::string> texts = ExampleTexts();
  ASSERT_FALSE(texts.empty());
  // Bytes that change structure more often than random ones do.
  const std::string interesting = "(){}[]<>;:,=+-*/%!&|\"\\\n 0123456789._xe";
  std::mt19937 random(20261129);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string text = texts[random() % texts.size()];
    int flips = 1 + static_cast<int>(random() % 4);
    for (int i = 0; i < flips; ++i) {
      size_t at = random() % text.size();
      text[at] = random() % 2 == 0 ? interesting[random() % interesting.size()]
                                   : static_cast<char>(random() % 256);
    }
    SCOPED_TRACE(testing::Message() << "trial " << trial);
    ExpectCleanOutcome(text);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace tile_ir::text
