// Lexical rules of the tile IR text form (docs/TEXT_FORMAT.md) shared by the
// canonical printer and the parser in frontends/text, so both agree on them.
#ifndef TILE_IR_TEXT_SYNTAX_H_
#define TILE_IR_TEXT_SYNTAX_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tile_ir/expr.h"

namespace tile_ir {

// How a binary operator is written infix: its symbol and its binding level, C's order
// (docs/TEXT_FORMAT.md): 1 (||) binds loosest, kTightestInfixLevel (* / %) tightest. Binary
// operators are left-associative. nullopt for those written as calls (min, max, ceildiv,
// floordiv, floormod). The one table the printer and the parser both read.
struct InfixSyntax {
  int level;
  std::string_view symbol;
};
std::optional<InfixSyntax> InfixSyntaxOf(BinaryOp op);
inline constexpr int kTightestInfixLevel = 10;

// [A-Za-z_] starts an identifier; [A-Za-z0-9_.] continues it.
bool IsIdentifierStart(char c);
bool IsIdentifierChar(char c);

// A word the grammar spells literally, a dtype spelling, true/false/inf/nan.
bool IsKeyword(std::string_view word);

// IsKeyword for a module that declares `ir_version`: a dtype spelling is a keyword from the
// version that introduced its type on, so a name such as `u32` read from a module of version 6
// stays a name there (the printer renames it where it is a keyword).
bool IsKeywordInVersion(std::string_view word, int64_t ir_version);

// `inf_DTYPE` or `nan_DTYPE`: words the lexer reads as float literals although
// they look like identifiers.
bool IsSpecialFloatWord(std::string_view word);

// A name the printer may write as is: it reads back as the same identifier.
bool IsValidIdentifier(std::string_view name);
// A name a module declaring `ir_version` may hold (IsKeywordInVersion).
bool IsValidIdentifierInVersion(std::string_view name, int64_t ir_version);

// An identifier or a keyword: what may follow `kernel`, where no keyword is
// expected (so `kernel gemm` is fine). Not inf/nan, which read as literals.
bool IsKernelName(std::string_view name);

// `name` made valid: other bytes become '_', a leading digit or '.' gets a '_'
// in front, a keyword or special float word gets a '_' appended; "" becomes "_".
std::string SanitizeIdentifier(std::string_view name);

// Length of the well-formed UTF-8 sequence starting at text[pos] (1 for
// ASCII), or 0 when the bytes there are not well-formed UTF-8.
size_t Utf8SequenceLength(std::string_view text, size_t pos);

// Appends `value` as a double-quoted string literal. Escapes: \" \\ \n \t and
// \xHH for other control bytes and bytes that are not well-formed UTF-8.
void AppendQuoted(std::string_view value, std::string* out);

}  // namespace tile_ir

#endif  // TILE_IR_TEXT_SYNTAX_H_
