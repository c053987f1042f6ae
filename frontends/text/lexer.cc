// The tokenizer of the text form.
#include "frontends/text/lexer.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tile_ir/text_syntax.h"

namespace tile_ir::text {
namespace {

std::string DescribeByte(char c) {
  auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x20 && byte < 0x7F) return absl::StrCat("character '", std::string(1, c), "'");
  return absl::StrFormat("byte 0x%02X", byte);
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string ShownText(std::string_view text) {
  constexpr size_t kMaxShown = 40;
  if (text.size() <= kMaxShown) return std::string(text);
  return absl::StrCat(std::string(text.substr(0, kMaxShown)), "... (", text.size(), " characters)");
}

std::string DescribeToken(const Token& token) {
  constexpr size_t kMaxShown = 32;
  switch (token.kind) {
    case TokenKind::kEnd: return "end of input";
    case TokenKind::kString: return "a string";
    default:
      if (token.text.size() > kMaxShown) {
        return absl::StrCat("'", std::string(token.text.substr(0, kMaxShown)), "...'");
      }
      return absl::StrCat("'", std::string(token.text), "'");
  }
}

Token Lexer::Make(TokenKind kind, size_t start, size_t end) const {
  Token token;
  token.kind = kind;
  token.text = text_.substr(start, end - start);
  token.offset = start;
  token.line = line_;
  token.col = static_cast<int>(start - line_start_) + 1;
  return token;
}

Token Lexer::Error(size_t at, std::string message) {
  Token token = Make(TokenKind::kError, at, at < text_.size() ? at + 1 : at);
  token.value = std::move(message);
  // Nothing after a lexical error is read.
  pos_ = text_.size();
  return token;
}

bool Lexer::SkipTrivia(Token* error) {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == '\n') {
      ++pos_;
      ++line_;
      line_start_ = pos_;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++pos_;
    } else if (c == '/' && PeekAt(pos_ + 1) == '/') {
      // Comments may hold any text, as long as it is UTF-8 without control bytes.
      pos_ += 2;
      while (pos_ < text_.size() && text_[pos_] != '\n') {
        auto byte = static_cast<unsigned char>(text_[pos_]);
        size_t length = Utf8SequenceLength(text_, pos_);
        if (length == 0) {
          *error = Error(pos_, absl::StrFormat("invalid UTF-8 byte 0x%02X in comment", byte));
          return false;
        }
        if ((byte < 0x20 && byte != '\t' && byte != '\r') || byte == 0x7F) {
          *error =
              Error(pos_, absl::StrCat("unexpected ", DescribeByte(text_[pos_]), " in comment"));
          return false;
        }
        pos_ += length;
      }
    } else {
      return true;
    }
  }
  return true;
}

Token Lexer::Next() {
  Token error;
  if (!SkipTrivia(&error)) return error;
  if (pos_ >= text_.size()) return Make(TokenKind::kEnd, pos_, pos_);
  size_t start = pos_;
  char c = text_[pos_];
  if (absl::ascii_isdigit(c)) return LexNumber(start);
  if (IsIdentifierStart(c)) return LexWord(start);
  if (c == '"') return LexString(start);
  return LexPunctuation(start);
}

Token Lexer::LexNumber(size_t start) {
  auto skip_digits = [this] {
    size_t first = pos_;
    while (absl::ascii_isdigit(PeekAt(pos_))) ++pos_;
    return pos_ > first;
  };
  skip_digits();
  bool is_float = false;
  if (PeekAt(pos_) == '.') {
    is_float = true;
    ++pos_;
    skip_digits();
  }
  if (PeekAt(pos_) == 'e' || PeekAt(pos_) == 'E') {
    is_float = true;
    ++pos_;
    if (PeekAt(pos_) == '+' || PeekAt(pos_) == '-') ++pos_;
    if (!skip_digits()) {
      return Error(pos_,
                   absl::StrCat("expected the digits of an exponent, found ",
                                pos_ < text_.size() ? DescribeByte(text_[pos_]) : "end of input"));
    }
  }
  if (PeekAt(pos_) == '_') {
    ++pos_;
    if (!absl::ascii_isalnum(PeekAt(pos_))) {
      return Error(pos_, "expected a dtype after '_' in a number");
    }
    while (absl::ascii_isalnum(PeekAt(pos_))) ++pos_;
  }
  if (pos_ < text_.size() && IsIdentifierChar(text_[pos_])) {
    return Error(pos_, absl::StrCat("unexpected ", DescribeByte(text_[pos_]), " in a number"));
  }
  return Make(is_float ? TokenKind::kFloat : TokenKind::kInt, start, pos_);
}

Token Lexer::LexWord(size_t start) {
  while (pos_ < text_.size() && IsIdentifierChar(text_[pos_])) ++pos_;
  std::string_view word = text_.substr(start, pos_ - start);
  bool is_float = word == "inf" || word == "nan" || IsSpecialFloatWord(word);
  return Make(is_float ? TokenKind::kFloat : TokenKind::kIdentifier, start, pos_);
}

Token Lexer::LexString(size_t start) {
  std::string value;
  ++pos_;
  while (true) {
    if (pos_ >= text_.size() || text_[pos_] == '\n') {
      return Error(start,
                   "unterminated string (a string ends on its line; write \\n for a "
                   "newline)");
    }
    char c = text_[pos_];
    auto byte = static_cast<unsigned char>(c);
    if (c == '"') break;
    if (c == '\\') {
      char escaped = PeekAt(pos_ + 1);
      if (escaped == '"' || escaped == '\\') {
        value += escaped;
      } else if (escaped == 'n') {
        value += '\n';
      } else if (escaped == 't') {
        value += '\t';
      } else if (escaped == 'x' && HexValue(PeekAt(pos_ + 2)) >= 0 &&
                 HexValue(PeekAt(pos_ + 3)) >= 0) {
        value += static_cast<char>(HexValue(text_[pos_ + 2]) * 16 + HexValue(text_[pos_ + 3]));
        pos_ += 2;
      } else {
        return Error(pos_, "invalid escape in string; expected \\\", \\\\, \\n, \\t or \\xHH");
      }
      pos_ += 2;
      continue;
    }
    if (byte < 0x20 || byte == 0x7F) {
      return Error(pos_, absl::StrFormat("unexpected byte 0x%02X in string; write it as \\x%02X",
                                         byte, byte));
    }
    size_t length = Utf8SequenceLength(text_, pos_);
    if (length == 0) {
      return Error(pos_, absl::StrFormat("invalid UTF-8 byte 0x%02X in string; write it as \\x%02X",
                                         byte, byte));
    }
    value.append(text_.substr(pos_, length));
    pos_ += length;
  }
  ++pos_;
  Token token = Make(TokenKind::kString, start, pos_);
  token.value = std::move(value);
  return token;
}

Token Lexer::LexPunctuation(size_t start) {
  char c = text_[pos_];
  char next = PeekAt(pos_ + 1);
  auto two = [&](TokenKind kind) {
    pos_ += 2;
    return Make(kind, start, pos_);
  };
  auto one = [&](TokenKind kind) {
    pos_ += 1;
    return Make(kind, start, pos_);
  };
  switch (c) {
    case '(': return one(TokenKind::kLParen);
    case ')': return one(TokenKind::kRParen);
    case '[': return one(TokenKind::kLBracket);
    case ']': return one(TokenKind::kRBracket);
    case '{': return one(TokenKind::kLBrace);
    case '}': return one(TokenKind::kRBrace);
    case ',': return one(TokenKind::kComma);
    case ';': return one(TokenKind::kSemicolon);
    case ':': return one(TokenKind::kColon);
    case '*': return one(TokenKind::kStar);
    case '/': return one(TokenKind::kSlash);
    case '%': return one(TokenKind::kPercent);
    case '^': return one(TokenKind::kCaret);
    case '+': return next == ':' ? two(TokenKind::kPlusColon) : one(TokenKind::kPlus);
    case '-': return next == '>' ? two(TokenKind::kArrow) : one(TokenKind::kMinus);
    case '<':
      if (next == '<') return two(TokenKind::kShiftLeft);
      return next == '=' ? two(TokenKind::kLessEqual) : one(TokenKind::kLess);
    case '>':
      if (next == '>') return two(TokenKind::kShiftRight);
      return next == '=' ? two(TokenKind::kGreaterEqual) : one(TokenKind::kGreater);
    case '=': return next == '=' ? two(TokenKind::kEqualEqual) : one(TokenKind::kAssign);
    case '!': return next == '=' ? two(TokenKind::kNotEqual) : one(TokenKind::kBang);
    case '&': return next == '&' ? two(TokenKind::kAndAnd) : one(TokenKind::kAmpersand);
    case '|': return next == '|' ? two(TokenKind::kOrOr) : one(TokenKind::kPipe);
    default: return Error(start, absl::StrCat("unexpected ", DescribeByte(c)));
  }
}

}  // namespace tile_ir::text
