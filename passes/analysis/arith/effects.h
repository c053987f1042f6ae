// What evaluating an expression may do besides producing its value.
#ifndef PASSES_ANALYSIS_ARITH_EFFECTS_H_
#define PASSES_ANALYSIS_ARITH_EFFECTS_H_

#include "tile_ir/expr.h"

namespace tile_ir::arith {

// True when evaluating `e` has no side effects: it calls no intrinsic that is
// registered as impure (or not registered at all). Such an expression may be
// dropped or evaluated twice.
bool IsPure(const Expr& e);

// True when `e` is pure and reads no memory, so its value depends only on the
// variables it names and may be moved across statements.
bool IsMemoryFree(const Expr& e);

}  // namespace tile_ir::arith

#endif  // PASSES_ANALYSIS_ARITH_EFFECTS_H_
