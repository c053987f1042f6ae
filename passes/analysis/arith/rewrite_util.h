// Small pattern helpers shared by the simplifier's rule files.
#ifndef PASSES_ANALYSIS_ARITH_REWRITE_UTIL_H_
#define PASSES_ANALYSIS_ARITH_REWRITE_UTIL_H_

#include <cstdint>

#include "passes/analysis/arith/int_math.h"
#include "tile_ir/expr.h"

namespace tile_ir::arith {

// The Binary node when `e` is one with operator `op`, else nullptr.
const Binary* AsBinary(const Expr& e, BinaryOp op);

// For e = x + c or e = x - c with a literal c: sets *base = x and *offset to
// +c or -c, and returns true.
bool SplitOffset(const Expr& e, Expr* base, int64_t* offset);

// For e = x * c with a literal c: x and c; otherwise e and 1.
void SplitScale(const Expr& e, Expr* base, int64_t* scale);

// A literal of integer type `dtype`; `value` must fit.
Expr IntConst(DataType dtype, Wide value);

// True when a and b always evaluate to the same value: the same node, or
// structurally equal and free of side effects.
bool SameValue(const Expr& a, const Expr& b);

}  // namespace tile_ir::arith

#endif  // PASSES_ANALYSIS_ARITH_REWRITE_UTIL_H_
