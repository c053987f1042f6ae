// The statements of a loop body, as passes that schedule or split a loop's statements walk them.
#ifndef PASSES_UTILS_LOOP_BODY_H_
#define PASSES_UTILS_LOOP_BODY_H_

#include <vector>

#include "tile_ir/stmt.h"

namespace tile_ir::passes {

// The statements of a loop body: a Seq's statements, or the body itself.
std::vector<Stmt> LoopBodyStmts(const For& loop);

}  // namespace tile_ir::passes

#endif  // PASSES_UTILS_LOOP_BODY_H_
