// Constant folding: evaluates an operator over literal operands when the
// result is exactly what every backend would compute.
#ifndef PASSES_ANALYSIS_ARITH_CONST_FOLD_H_
#define PASSES_ANALYSIS_ARITH_CONST_FOLD_H_

#include "tile_ir/expr.h"

namespace tile_ir::arith {

// Each returns the folded literal, or nullptr when an operand is not a scalar
// literal or folding would not be exact:
// - integers and bool: any operator, except a division or modulo by zero (left
//   for the program to meet) and a result outside the type (never guess at overflow);
// - f32 and f64: +, -, *, / only when the result is exactly representable (so
//   no rounding mode matters), min and max without NaN or two zeros, and
//   comparisons without NaN; f16, bf16 and f8 are never folded, since targets
//   compute them in wider types and round differently;
// - casts: between integer types when the value fits, to and from bool, from
//   integers to f32/f64 when exact, and between f32 and f64 when exact.
Expr FoldBinary(BinaryOp op, const Expr& a, const Expr& b);
Expr FoldUnary(UnaryOp op, const Expr& a);
Expr FoldCast(DataType to, const Expr& value);

}  // namespace tile_ir::arith

#endif  // PASSES_ANALYSIS_ARITH_CONST_FOLD_H_
