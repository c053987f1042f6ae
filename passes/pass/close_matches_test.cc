#include "passes/pass/close_matches.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tile_ir::passes {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const std::vector<std::string> kPasses = {"simplify", "remove-dead-code", "layout-inference",
                                          "lower-tile-ops", "inject-pipeline"};

TEST(CloseMatchesTest, FindsOneLetterTypos) {
  EXPECT_THAT(CloseMatches("simplfy", kPasses), ElementsAre("simplify"));    // deletion
  EXPECT_THAT(CloseMatches("simpliffy", kPasses), ElementsAre("simplify"));  // insertion
  EXPECT_THAT(CloseMatches("simplifx", kPasses), ElementsAre("simplify"));   // substitution
  EXPECT_THAT(CloseMatches("smiplify", kPasses), ElementsAre("simplify"));   // swap
}

TEST(CloseMatchesTest, AllowsMoreEditsInLongerNames) {
  EXPECT_THAT(CloseMatches("remove-dead-cod", kPasses), ElementsAre("remove-dead-code"));
  EXPECT_THAT(CloseMatches("remove_dead_code", kPasses), ElementsAre("remove-dead-code"));
  EXPECT_THAT(CloseMatches("lower-tile-op", kPasses), ElementsAre("lower-tile-ops"));
}

TEST(CloseMatchesTest, RejectsUnrelatedWords) {
  EXPECT_THAT(CloseMatches("vectorize", kPasses), IsEmpty());
  EXPECT_THAT(CloseMatches("", kPasses), IsEmpty());
  EXPECT_THAT(CloseMatches("simplify", {}), IsEmpty());
}

TEST(CloseMatchesTest, SortsByDistanceThenName) {
  EXPECT_THAT(CloseMatches("abd", {"abx", "abcd", "aby", "abd"}),
              ElementsAre("abd", "abcd", "abx", "aby"));
}

TEST(DidYouMeanTest, ListsMatches) {
  EXPECT_EQ(DidYouMean({}), "");
  EXPECT_EQ(DidYouMean({"a"}), "; did you mean 'a'?");
  EXPECT_EQ(DidYouMean({"a", "b"}), "; did you mean 'a' or 'b'?");
  EXPECT_EQ(DidYouMean({"a", "b", "c"}), "; did you mean 'a', 'b' or 'c'?");
}

}  // namespace
}  // namespace tile_ir::passes
