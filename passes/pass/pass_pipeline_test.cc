#include "passes/pass/pass_pipeline.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tile_ir::passes {
namespace {

using ::testing::HasSubstr;
using Options = std::vector<std::pair<std::string, std::string>>;

Pipeline ParseOrDie(std::string_view text) {
  absl::StatusOr<Pipeline> pipeline = ParsePipeline(text);
  EXPECT_TRUE(pipeline.ok()) << pipeline.status();
  return pipeline.ok() ? *pipeline : Pipeline{};
}

std::string ParseError(std::string_view text) {
  absl::StatusOr<Pipeline> pipeline = ParsePipeline(text);
  EXPECT_FALSE(pipeline.ok()) << "parsed: " << text;
  return pipeline.ok() ? "" : std::string(pipeline.status().message());
}

TEST(PipelineTest, ParsesStepsAndOptions) {
  Pipeline pipeline = ParseOrDie("a,b{opt=1,other=true},c");
  ASSERT_EQ(pipeline.size(), 3u);
  EXPECT_EQ(pipeline[0], (PipelineStep{"a", {}}));
  EXPECT_EQ(pipeline[1], (PipelineStep{"b", Options{{"opt", "1"}, {"other", "true"}}}));
  EXPECT_EQ(pipeline[2], (PipelineStep{"c", {}}));
}

TEST(PipelineTest, EmptyTextIsTheEmptyPipeline) {
  EXPECT_TRUE(ParseOrDie("").empty());
  EXPECT_TRUE(ParseOrDie("  \n ").empty());
  EXPECT_EQ(PrintPipeline({}), "");
}

TEST(PipelineTest, AllowsWhitespaceAroundTokens) {
  Pipeline pipeline = ParseOrDie("  a , b { opt = 1 , other = x } ,\n c  ");
  EXPECT_EQ(PrintPipeline(pipeline), "a,b{opt=1,other=x},c");
}

TEST(PipelineTest, BareValuesTakeEverythingButSeparators) {
  Pipeline pipeline = ParseOrDie("lower{target=cuda:sm_90a,scale=-1.5e3,path=/tmp/x.tile}");
  EXPECT_EQ(pipeline[0].options,
            (Options{{"target", "cuda:sm_90a"}, {"scale", "-1.5e3"}, {"path", "/tmp/x.tile"}}));
}

TEST(PipelineTest, QuotedValuesHoldSeparatorsAndEscapes) {
  Pipeline pipeline = ParseOrDie(R"(p{a="x, {y}",b="say \"hi\" \\ bye",c=""})");
  EXPECT_EQ(pipeline[0].options, (Options{{"a", "x, {y}"}, {"b", R"(say "hi" \ bye)"}, {"c", ""}}));
}

TEST(PipelineTest, EmptyBracesAreNoOptions) {
  EXPECT_EQ(ParseOrDie("a{ }")[0], (PipelineStep{"a", {}}));
}

TEST(PipelineTest, PrintIsCanonicalAndRoundTrips) {
  const char* inputs[] = {
      "a",
      " a{x=1} ,b",
      R"(p{a="x, {y}",b="say \"hi\"",c="",d="two words",e=plain})",
      "simplify{max-iterations=2},remove-dead-code,simplify",
  };
  for (const char* input : inputs) {
    Pipeline parsed = ParseOrDie(input);
    std::string printed = PrintPipeline(parsed);
    EXPECT_EQ(ParseOrDie(printed), parsed) << printed;
    EXPECT_EQ(PrintPipeline(ParseOrDie(printed)), printed);
  }
  EXPECT_EQ(PrintPipeline(ParseOrDie(R"(p{a="x, {y}",e="plain"})")), R"(p{a="x, {y}",e=plain})");
}

TEST(PipelineTest, ParsePrintRoundTripsBuiltPipelines) {
  Pipeline pipeline = {{"lower-tile-ops", {{"target", "cuda"}, {"note", "a=b"}}},
                       {"p", {{"q", "\"\\"}, {"r", "\n"}}}};
  EXPECT_EQ(ParseOrDie(PrintPipeline(pipeline)), pipeline);
}

TEST(PipelineTest, ErrorsNameTheColumnAndWhatWasExpected) {
  EXPECT_EQ(ParseError(",a"), "invalid pass pipeline at column 1: expected a pass name, found ','");
  EXPECT_EQ(ParseError("a,"),
            "invalid pass pipeline at column 3: expected a pass name, found the end of the "
            "pipeline");
  EXPECT_EQ(ParseError("a,,b"),
            "invalid pass pipeline at column 3: expected a pass name, found ','");
  EXPECT_EQ(ParseError("a b"),
            "invalid pass pipeline at column 3: expected ',' between passes or the end of the "
            "pipeline, found 'b'");
  EXPECT_EQ(ParseError("a{x}"),
            "invalid pass pipeline at column 4: expected '=' after option name, found '}'");
  EXPECT_EQ(ParseError("a{x=}"),
            "invalid pass pipeline at column 5: expected an option value, found '}'");
  EXPECT_EQ(ParseError("a{x=1"),
            "invalid pass pipeline at column 6: expected ',' or '}' after option value, found "
            "the end of the pipeline");
  EXPECT_EQ(ParseError("a{=1}"),
            "invalid pass pipeline at column 3: expected an option name, found '='");
  EXPECT_THAT(ParseError(R"(a{x="abc})"), HasSubstr("column 10: expected '\"' to close"));
  EXPECT_THAT(ParseError(R"(a{x="\n"})"), HasSubstr("column 7: expected '\"' or '\\'"));
}

TEST(PipelineTest, RejectsAnOptionGivenTwice) {
  EXPECT_EQ(ParseError("a{x=1, x=2}"),
            "invalid pass pipeline at column 8: option 'x' is given twice for pass 'a'");
}

}  // namespace
}  // namespace tile_ir::passes
