// Identifier, keyword, UTF-8 and string-literal rules of the text form.
#include "tile_ir/text_syntax.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "tile_ir/dtype.h"
#include "tile_ir/version.h"

namespace tile_ir {

std::optional<InfixSyntax> InfixSyntaxOf(BinaryOp op) {
  switch (op) {
    case BinaryOp::kOr: return InfixSyntax{1, "||"};
    case BinaryOp::kAnd: return InfixSyntax{2, "&&"};
    case BinaryOp::kBitOr: return InfixSyntax{3, "|"};
    case BinaryOp::kXor: return InfixSyntax{4, "^"};
    case BinaryOp::kBitAnd: return InfixSyntax{5, "&"};
    case BinaryOp::kEq: return InfixSyntax{6, "=="};
    case BinaryOp::kNe: return InfixSyntax{6, "!="};
    case BinaryOp::kLt: return InfixSyntax{7, "<"};
    case BinaryOp::kLe: return InfixSyntax{7, "<="};
    case BinaryOp::kGt: return InfixSyntax{7, ">"};
    case BinaryOp::kGe: return InfixSyntax{7, ">="};
    case BinaryOp::kShl: return InfixSyntax{8, "<<"};
    case BinaryOp::kShr: return InfixSyntax{8, ">>"};
    case BinaryOp::kAdd: return InfixSyntax{9, "+"};
    case BinaryOp::kSub: return InfixSyntax{9, "-"};
    case BinaryOp::kMul: return InfixSyntax{kTightestInfixLevel, "*"};
    case BinaryOp::kDiv: return InfixSyntax{kTightestInfixLevel, "/"};
    case BinaryOp::kMod: return InfixSyntax{kTightestInfixLevel, "%"};
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod:
    case BinaryOp::kCeilDiv:
    case BinaryOp::kMin:
    case BinaryOp::kMax: return std::nullopt;
  }
  return std::nullopt;
}

namespace {

// The reserved words: those that start a statement or an expression form,
// the literals, and `in` and `loc`, which follow expressions. Every other word
// the grammar spells (loop kinds, scopes, option names, `x`, `row`, `sum`...)
// appears only where no name can stand, so it stays usable as a name. dtype
// spellings are reserved through DataType::Parse.
const absl::flat_hash_set<std::string_view>& GrammarWords() {
  static const auto* words = new absl::flat_hash_set<std::string_view>{
      "alloc",   "atomic_add", "barrier", "broadcast", "cast",     "ceildiv",  "copy",
      "cumsum",  "else",       "eval",    "false",     "fill",     "floordiv", "floormod",
      "for",     "gemm",       "if",      "in",        "inf",      "ir_version", "kernel",
      "let",     "loc",        "max",     "min",       "nan",      "producer", "ramp",
      "reduce",  "select",     "true",
  };
  return *words;
}

bool IsContinuation(std::string_view text, size_t pos, unsigned char low = 0x80,
                    unsigned char high = 0xBF) {
  if (pos >= text.size()) return false;
  auto byte = static_cast<unsigned char>(text[pos]);
  return byte >= low && byte <= high;
}

constexpr char kHexDigits[] = "0123456789ABCDEF";

}  // namespace

bool IsIdentifierStart(char c) { return absl::ascii_isalpha(c) || c == '_'; }

bool IsIdentifierChar(char c) { return absl::ascii_isalnum(c) || c == '_' || c == '.'; }

bool IsKeyword(std::string_view word) {
  return GrammarWords().contains(word) || DataType::Parse(word).has_value();
}

bool IsKeywordInVersion(std::string_view word, int64_t ir_version) {
  if (GrammarWords().contains(word)) return true;
  std::optional<DataType> dtype = DataType::Parse(word);
  return dtype && IntroducedInIrVersion(dtype->scalar()) <= ir_version;
}

bool IsSpecialFloatWord(std::string_view word) {
  if (word.size() < 5 || word[3] != '_') return false;
  std::string_view head = word.substr(0, 3);
  return (head == "inf" || head == "nan") && DataType::Parse(word.substr(4)).has_value();
}

bool IsKernelName(std::string_view name) {
  if (name.empty() || !IsIdentifierStart(name[0])) return false;
  for (char c : name) {
    if (!IsIdentifierChar(c)) return false;
  }
  return name != "inf" && name != "nan" && !IsSpecialFloatWord(name);
}

bool IsValidIdentifier(std::string_view name) { return IsKernelName(name) && !IsKeyword(name); }

bool IsValidIdentifierInVersion(std::string_view name, int64_t ir_version) {
  return IsKernelName(name) && !IsKeywordInVersion(name, ir_version);
}

std::string SanitizeIdentifier(std::string_view name) {
  std::string result;
  result.reserve(name.size() + 2);
  if (name.empty() || !IsIdentifierStart(name[0])) result += '_';
  for (char c : name) result += IsIdentifierChar(c) ? c : '_';
  if (IsKeyword(result) || IsSpecialFloatWord(result)) result += '_';
  return result;
}

size_t Utf8SequenceLength(std::string_view text, size_t pos) {
  auto lead = static_cast<unsigned char>(text[pos]);
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return IsContinuation(text, pos + 1) ? 2 : 0;
  if (lead >= 0xE0 && lead <= 0xEF) {
    // E0 would allow overlong forms below A0; ED would encode UTF-16 surrogates.
    unsigned char low = lead == 0xE0 ? 0xA0 : 0x80;
    unsigned char high = lead == 0xED ? 0x9F : 0xBF;
    return IsContinuation(text, pos + 1, low, high) && IsContinuation(text, pos + 2) ? 3 : 0;
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    // F0 would allow overlong forms below 90; F4 above 8F passes U+10FFFF.
    unsigned char low = lead == 0xF0 ? 0x90 : 0x80;
    unsigned char high = lead == 0xF4 ? 0x8F : 0xBF;
    return IsContinuation(text, pos + 1, low, high) && IsContinuation(text, pos + 2) &&
                   IsContinuation(text, pos + 3)
               ? 4
               : 0;
  }
  return 0;
}

void AppendQuoted(std::string_view value, std::string* out) {
  out->push_back('"');
  size_t pos = 0;
  while (pos < value.size()) {
    char c = value[pos];
    auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (c == '\n') {
      out->append("\\n");
    } else if (c == '\t') {
      out->append("\\t");
    } else if (byte >= 0x20 && byte < 0x7F) {
      out->push_back(c);
    } else if (size_t length = byte >= 0x80 ? Utf8SequenceLength(value, pos) : 0; length > 0) {
      out->append(value.substr(pos, length));
      pos += length;
      continue;
    } else {
      out->append("\\x");
      out->push_back(kHexDigits[byte >> 4]);
      out->push_back(kHexDigits[byte & 0xF]);
    }
    ++pos;
  }
  out->push_back('"');
}

}  // namespace tile_ir
