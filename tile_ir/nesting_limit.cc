// The message of nesting_limit.h, in one place so that every reader words it alike.
#include "tile_ir/nesting_limit.h"

namespace tile_ir {

std::string NestingTooDeepMessage() {
  return "statements and expressions nest more than " + std::to_string(kMaxNestingDepth) +
         " deep; bind parts of a deep expression to names with 'let', or split the kernel";
}

}  // namespace tile_ir
