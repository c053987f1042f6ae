// Identifier, keyword, UTF-8 and quoting rules shared by the printer and the parser.
#include "tile_ir/text_syntax.h"

#include <gtest/gtest.h>

namespace tile_ir {
namespace {

TEST(TextSyntaxTest, ValidIdentifiers) {
  for (const char* name : {"a", "_", "A_s", "cuda.shfl", "i2", "inf_x", "nan_f17", "xy", "f16_",
                           "x", "row", "sum", "parallel", "shared"}) {
    EXPECT_TRUE(IsValidIdentifier(name)) << name;
  }
  for (const char* name : {"", "2a", ".a", "a-b", "for", "copy", "loc", "f16", "bf16x8", "void",
                           "true", "inf", "nan", "inf_f16", "nan_bf16", "inf_i32", "min", "a b"}) {
    EXPECT_FALSE(IsValidIdentifier(name)) << name;
  }
}

TEST(TextSyntaxTest, SanitizeMakesValidIdentifiers) {
  EXPECT_EQ(SanitizeIdentifier(""), "_");
  EXPECT_EQ(SanitizeIdentifier("2a"), "_2a");
  EXPECT_EQ(SanitizeIdentifier("a-b c"), "a_b_c");
  EXPECT_EQ(SanitizeIdentifier("for"), "for_");
  EXPECT_EQ(SanitizeIdentifier("f16"), "f16_");
  EXPECT_EQ(SanitizeIdentifier("inf_f16"), "inf_f16_");
  EXPECT_EQ(SanitizeIdentifier("é"), "___");
  for (const char* name : {"", "2a", "x", "f32x4", "nan_f16", ".", "\xff"}) {
    EXPECT_TRUE(IsValidIdentifier(SanitizeIdentifier(name))) << name;
  }
}

TEST(TextSyntaxTest, Utf8SequenceLength) {
  EXPECT_EQ(Utf8SequenceLength("a", 0), 1u);
  EXPECT_EQ(Utf8SequenceLength("\xc3\xa9", 0), 2u);          // é
  EXPECT_EQ(Utf8SequenceLength("\xe2\x82\xac", 0), 3u);      // €
  EXPECT_EQ(Utf8SequenceLength("\xf0\x9f\x98\x80", 0), 4u);  // an emoji
  EXPECT_EQ(Utf8SequenceLength("\xc3", 0), 0u);              // truncated
  EXPECT_EQ(Utf8SequenceLength("\xc0\xaf", 0), 0u);          // overlong
  EXPECT_EQ(Utf8SequenceLength("\xe0\x80\xaf", 0), 0u);      // overlong
  EXPECT_EQ(Utf8SequenceLength("\xed\xa0\x80", 0), 0u);      // surrogate
  EXPECT_EQ(Utf8SequenceLength("\xf4\x90\x80\x80", 0), 0u);  // above U+10FFFF
  EXPECT_EQ(Utf8SequenceLength("\x80", 0), 0u);              // lone continuation
}

TEST(TextSyntaxTest, QuotesEveryByteReadably) {
  std::string out;
  AppendQuoted("a\"b\\c\nd\te\x01\x7f\xff\xc3\xa9", &out);
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\nd\\te\\x01\\x7F\\xFF\xc3\xa9\"");
}

}  // namespace
TEST(TextSyntaxTest, InfixLevelsAreCs) {
  // || < && < ^ < == != < relational < + - < * / %; the call-like operators have none.
  EXPECT_LT(InfixSyntaxOf(BinaryOp::kOr)->level, InfixSyntaxOf(BinaryOp::kAnd)->level);
  EXPECT_LT(InfixSyntaxOf(BinaryOp::kAnd)->level, InfixSyntaxOf(BinaryOp::kXor)->level);
  EXPECT_LT(InfixSyntaxOf(BinaryOp::kXor)->level, InfixSyntaxOf(BinaryOp::kEq)->level);
  EXPECT_EQ(InfixSyntaxOf(BinaryOp::kEq)->level, InfixSyntaxOf(BinaryOp::kNe)->level);
  EXPECT_LT(InfixSyntaxOf(BinaryOp::kNe)->level, InfixSyntaxOf(BinaryOp::kLt)->level);
  EXPECT_LT(InfixSyntaxOf(BinaryOp::kGe)->level, InfixSyntaxOf(BinaryOp::kAdd)->level);
  EXPECT_LT(InfixSyntaxOf(BinaryOp::kSub)->level, InfixSyntaxOf(BinaryOp::kMul)->level);
  EXPECT_EQ(InfixSyntaxOf(BinaryOp::kMod)->level, kTightestInfixLevel);
  EXPECT_EQ(InfixSyntaxOf(BinaryOp::kXor)->symbol, "^");
  for (BinaryOp op : {BinaryOp::kMin, BinaryOp::kMax, BinaryOp::kCeilDiv, BinaryOp::kFloorDiv,
                      BinaryOp::kFloorMod}) {
    EXPECT_FALSE(InfixSyntaxOf(op)) << BinaryOpName(op);
  }
}

}  // namespace tile_ir
