// Tokens of the tile IR text form (docs/TEXT_FORMAT.md, "Lexical rules").
#ifndef FRONTENDS_TEXT_LEXER_H_
#define FRONTENDS_TEXT_LEXER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tile_ir::text {

enum class TokenKind : uint8_t {
  kEnd,
  kError,       // `value` holds the message
  kIdentifier,  // keywords too: the parser tells them apart
  kInt,         // digits with an optional _DTYPE suffix; a leading '-' is its own token
  kFloat,       // also inf, nan, inf_DTYPE and nan_DTYPE
  kString,      // `value` holds the decoded bytes
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kLBrace,
  kRBrace,
  kLess,
  kLessEqual,
  kGreater,
  kGreaterEqual,
  kEqualEqual,
  kNotEqual,
  kAssign,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kPercent,
  kCaret,       // '^', bitwise exclusive or
  kAmpersand,   // '&', bitwise and
  kPipe,        // '|', bitwise or
  kShiftLeft,   // "<<"
  kShiftRight,  // ">>"
  kBang,
  kAndAnd,
  kOrOr,
  kComma,
  kSemicolon,
  kColon,
  kPlusColon,  // "+:" of a range
  kArrow,      // "->"
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string_view text;  // the token's bytes in the input
  size_t offset = 0;      // of text's first byte
  int line = 1;           // 1-based
  int col = 1;            // 1-based, in bytes
  std::string value;      // string contents or error message
};

// Splits text into tokens on demand, skipping whitespace and // comments.
// Input that no token matches (a stray byte, an unterminated string, bad
// UTF-8 or a control byte in a comment) yields one kError token, then kEnd.
class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  Token Next();

 private:
  // Skips whitespace and comments; false (with *error set) on a bad byte in a comment.
  bool SkipTrivia(Token* error);
  Token Make(TokenKind kind, size_t start, size_t end) const;
  Token Error(size_t at, std::string message);
  Token LexNumber(size_t start);
  Token LexWord(size_t start);
  Token LexString(size_t start);
  Token LexPunctuation(size_t start);
  char PeekAt(size_t pos) const { return pos < text_.size() ? text_[pos] : '\0'; }

  std::string_view text_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
};

// Input text quoted in a message: whole up to 40 characters, else its first 40 and
// "... (N characters)", so that a 10^6-digit literal is not repeated whole.
std::string ShownText(std::string_view text);

// How an error message names a token: 'text', or "end of input".
std::string DescribeToken(const Token& token);

}  // namespace tile_ir::text

#endif  // FRONTENDS_TEXT_LEXER_H_
