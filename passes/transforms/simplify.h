// The `simplify` pass: arithmetic simplification with loop ranges, and the
// control flow it decides (dead branches, loops of 0 or 1 iterations).
#ifndef PASSES_TRANSFORMS_SIMPLIFY_H_
#define PASSES_TRANSFORMS_SIMPLIFY_H_

#include "passes/pass/pass.h"
#include "tile_ir/expr.h"
#include "tile_ir/module.h"
#include "tile_ir/stmt.h"

namespace tile_ir::passes {

// Without facts about its variables: constant folding (exact only: no
// division by zero, no overflow, floats only when exactly representable and
// never f16/bf16), identities (x + 0, x * 1, x * 0, x - x, x / 1, min(x, x),
// x == x, ...), constants gathered at the right ((x + 1) + 2 -> x + 3,
// (x * 2) * 4 -> x * 8, (x + 1) * 4 -> x * 4 + 4) and like terms collected.
Expr SimplifyExpr(const Expr& expr);

// Simplifies every expression of `stmt`, knowing that each loop variable lies
// in its loop's range (so within `for i in 0 +: 128`, floormod(i, 128) is i,
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

// Simplifies each kernel again until it no longer changes, at most
// `max_iterations` times. Returns whether anything changed.
bool SimplifyModule(Module& module, int64_t max_iterations = 4);

// The pass: `simplify{max-iterations=4}`.
PassInfo SimplifyPass();

}  // namespace tile_ir::passes

#endif  // PASSES_TRANSFORMS_SIMPLIFY_H_
