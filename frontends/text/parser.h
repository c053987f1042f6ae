// Parser for the canonical text form of the tile IR (docs/TEXT_FORMAT.md).
#ifndef FRONTENDS_TEXT_PARSER_H_
#define FRONTENDS_TEXT_PARSER_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "tile_ir/module.h"

namespace tile_ir::text {

// Parses a whole module. Errors are InvalidArgument with the message
// "FILE:LINE:COL: error: expected X, found Y" for the first problem. Nesting
// deeper than kMaxNestingDepth is an error, never a stack overflow.
absl::StatusOr<Module> ParseModule(std::string_view text, std::string_view filename);

inline constexpr int kMaxNestingDepth = 500;

}  // namespace tile_ir::text

#endif  // FRONTENDS_TEXT_PARSER_H_
