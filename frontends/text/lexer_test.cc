// Tokens of the text form: kinds, positions, literals, strings and lexical errors.
#include "frontends/text/lexer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tile_ir::text {
namespace {

std::vector<Token> Lex(std::string_view text) {
  Lexer lexer(text);
  std::vector<Token> tokens;
  while (true) {
    tokens.push_back(lexer.Next());
    if (tokens.back().kind == TokenKind::kEnd || tokens.back().kind == TokenKind::kError) break;
  }
  return tokens;
}

std::vector<TokenKind> Kinds(std::string_view text) {
  std::vector<TokenKind> kinds;
  for (const Token& token : Lex(text)) kinds.push_back(token.kind);
  return kinds;
}

using K = TokenKind;

TEST(LexerTest, PunctuationTakesTheLongestMatch) {
  EXPECT_EQ(
      Kinds("( ) [ ] { } , ; : +: -> + - * / % ^ ! && || < <= > >= == != ="),
      (std::vector<TokenKind>{
          K::kLParen,     K::kRParen,    K::kLBracket, K::kRBracket,  K::kLBrace,  K::kRBrace,
          K::kComma,      K::kSemicolon, K::kColon,    K::kPlusColon, K::kArrow,   K::kPlus,
          K::kMinus,      K::kStar,      K::kSlash,    K::kPercent,   K::kCaret,   K::kBang,
          K::kAndAnd,     K::kOrOr,      K::kLess,     K::kLessEqual, K::kGreater, K::kGreaterEqual,
          K::kEqualEqual, K::kNotEqual,  K::kAssign,   K::kEnd}));
  EXPECT_EQ(Kinds("& | << >> <<= >>= &&& |||"),
            (std::vector<TokenKind>{K::kAmpersand, K::kPipe, K::kShiftLeft, K::kShiftRight,
                                    K::kShiftLeft, K::kAssign, K::kShiftRight, K::kAssign,
                                    K::kAndAnd, K::kAmpersand, K::kOrOr, K::kPipe, K::kEnd}));
  EXPECT_EQ(Kinds("a+:b-->c"),
            (std::vector<TokenKind>{K::kIdentifier, K::kPlusColon, K::kIdentifier, K::kMinus,
                                    K::kArrow, K::kIdentifier, K::kEnd}));
}

TEST(LexerTest, TracksLinesAndColumnsAcrossComments) {
  std::vector<Token> tokens = Lex("a // note é\n  bb\t\"s\"\r\n// last");
  ASSERT_EQ(tokens.size(), 4u);
  EXPECT_EQ(tokens[0].line, 1);
  EXPECT_EQ(tokens[0].col, 1);
  EXPECT_EQ(tokens[1].text, "bb");
  EXPECT_EQ(tokens[1].line, 2);
  EXPECT_EQ(tokens[1].col, 3);
  EXPECT_EQ(tokens[2].col, 6);
  EXPECT_EQ(tokens[3].kind, K::kEnd);
  EXPECT_EQ(tokens[3].line, 3);
}

TEST(LexerTest, NumbersKeepTheirSuffixAndDoNotIncludeTheSign) {
  std::vector<Token> tokens = Lex("7 7_i64 255_u8 0.5 1. 1e+20 2E-3_f16 1.5e3_bf16 -3");
  std::vector<std::string_view> texts;
  std::vector<TokenKind> kinds;
  for (const Token& token : tokens) {
    texts.push_back(token.text);
    kinds.push_back(token.kind);
  }
  EXPECT_EQ(texts, (std::vector<std::string_view>{"7", "7_i64", "255_u8", "0.5", "1.", "1e+20",
                                                  "2E-3_f16", "1.5e3_bf16", "-", "3", ""}));
  EXPECT_EQ(kinds,
            (std::vector<TokenKind>{K::kInt, K::kInt, K::kInt, K::kFloat, K::kFloat, K::kFloat,
                                    K::kFloat, K::kFloat, K::kMinus, K::kInt, K::kEnd}));
}

TEST(LexerTest, InfAndNanWithADtypeAreFloats) {
  EXPECT_EQ(Kinds("inf nan inf_f16 nan_bf16 inf_x info nan.b"),
            (std::vector<TokenKind>{K::kFloat, K::kFloat, K::kFloat, K::kFloat, K::kIdentifier,
                                    K::kIdentifier, K::kIdentifier, K::kEnd}));
}

TEST(LexerTest, IdentifiersMayHoldDots) {
  std::vector<Token> tokens = Lex("cuda.shfl_xor _x9");
  EXPECT_EQ(tokens[0].text, "cuda.shfl_xor");
  EXPECT_EQ(tokens[1].text, "_x9");
}

TEST(LexerTest, StringsDecodeTheirEscapes) {
  std::vector<Token> tokens = Lex(R"("a\"b\\c\nd\te\x41\xff" "é")");
  ASSERT_EQ(tokens[0].kind, K::kString);
  EXPECT_EQ(tokens[0].value, "a\"b\\c\nd\teA\xff");
  EXPECT_EQ(tokens[1].value, "é");
}

struct ErrorCase {
  const char* text;
  int col;
  const char* message;
};

TEST(LexerTest, ReportsOneErrorWithItsPosition) {
  const ErrorCase cases[] = {
      {"a $", 3, "unexpected character '$'"},
      {"a \x01", 3, "unexpected byte 0x01"},
      {"a \xc3\xa9", 3, "unexpected byte 0xC3"},
      {"12ab", 3, "unexpected character 'a' in a number"},
      {"1.5.2", 4, "unexpected character '.' in a number"},
      {"1e+", 4, "expected the digits of an exponent, found end of input"},
      {"1_", 3, "expected a dtype after '_' in a number"},
      {" \"abc", 2, "unterminated string"},
      {"\"ab\ncd\"", 1, "unterminated string"},
      {"\"\\u0041\"", 2, "invalid escape in string"},
      {"\"\\x4\"", 2, "invalid escape in string"},
      {"\"\xff\"", 2, "invalid UTF-8 byte 0xFF in string"},
      {"\"\x7f\"", 2, "unexpected byte 0x7F in string"},
      {"// \xe2\x82", 4, "invalid UTF-8 byte 0xE2 in comment"},
      {"// a\x1b[0m", 5, "unexpected byte 0x1B in comment"},
  };
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.text);
    std::vector<Token> tokens = Lex(c.text);
    const Token& error = tokens.back();
    ASSERT_EQ(error.kind, K::kError);
    EXPECT_EQ(error.col, c.col);
    EXPECT_NE(error.value.find(c.message), std::string::npos) << error.value;
  }
}

TEST(LexerTest, NothingFollowsAnError) {
  Lexer lexer("$ a b");
  EXPECT_EQ(lexer.Next().kind, K::kError);
  EXPECT_EQ(lexer.Next().kind, K::kEnd);
}

TEST(LexerTest, DescribesTokensForMessages) {
  std::vector<Token> tokens = Lex("abc \"s\"");
  EXPECT_EQ(DescribeToken(tokens[0]), "'abc'");
  EXPECT_EQ(DescribeToken(tokens[1]), "a string");
  EXPECT_EQ(DescribeToken(tokens[2]), "end of input");
  std::string long_name(100, 'n');
  EXPECT_EQ(DescribeToken(Lex(long_name)[0]), "'" + std::string(32, 'n') + "...'");
}

}  // namespace
}  // namespace tile_ir::text
