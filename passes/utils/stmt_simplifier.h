// The statement simplifier: the simplify pass's rewriting, which lowering passes also run over
// the statements they build.
#ifndef PASSES_UTILS_STMT_SIMPLIFIER_H_
#define PASSES_UTILS_STMT_SIMPLIFIER_H_

#include "tile_ir/module.h"
#include "tile_ir/stmt.h"

namespace tile_ir::passes {

// Simplifies every expression of `stmt` (arith::ExprSimplifier), knowing that each loop
// variable lies in its loop's range (so within `for i in 0 +: 128`, floormod(i, 128) is i,
// floordiv(i, 128) is 0 and i < 128 is true) and substituting let variables
// bound to literals or to other variables. Then an `if` with a decided
// condition becomes the branch taken, a loop with a constant extent of 0 or
// less disappears, a loop with extent 1 (not thread-bound, with a min that
// reads no memory) becomes its body with the variable replaced by the min,
// and nested blocks that declare nothing are spliced into their parent.
// Returns an empty Seq when nothing is left.
Stmt Simplify(const Stmt& stmt);

// Simplify over a kernel body and its grid extents, also knowing that grid
// variables lie in [0, extent) and symbolic shape dimensions are not negative.
// The same pointer when nothing changed.
Kernel SimplifyKernel(const Kernel& kernel);

}  // namespace tile_ir::passes

#endif  // PASSES_UTILS_STMT_SIMPLIFIER_H_
