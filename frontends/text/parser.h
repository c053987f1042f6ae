// Parser for the canonical text form of the tile IR (docs/TEXT_FORMAT.md).
#ifndef FRONTENDS_TEXT_PARSER_H_
#define FRONTENDS_TEXT_PARSER_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "tile_ir/module.h"
#include "tile_ir/nesting_limit.h"

namespace tile_ir::text {

// Parses a whole module. Errors are InvalidArgument with the message
// "FILE:LINE:COL: error: expected X, found Y" for the first problem. A module
// nested deeper than kMaxNestingDepth (tile_ir/nesting_limit.h, the bound of
// every reader) is an error, never a stack overflow, and so are parentheses,
// unary operators and blocks nested more than kMaxSyntaxNesting deep.
absl::StatusOr<Module> ParseModule(std::string_view text, std::string_view filename);

// Text printed from a module rather than written by someone (a kernel cache artifact): a
// statement or kernel without a loc(...) suffix keeps no location, where ParseModule gives it
// its position in the text. Printed with locations, such a module reads back exactly, and what
// it reports names the original source, not a line of the printout. Errors as ParseModule's.
absl::StatusOr<Module> ParsePrintedModule(std::string_view text, std::string_view filename);

// The parser's own recursion, which redundant parentheses deepen without
// deepening the module; text printed from any module within kMaxNestingDepth
// stays within it (each node costs at most two levels: `-(-x)`).
inline constexpr int kMaxSyntaxNesting = 2 * kMaxNestingDepth;

}  // namespace tile_ir::text

#endif  // FRONTENDS_TEXT_PARSER_H_
