// Exact integer semantics of the IR's operators, shared by constant folding
// and interval analysis so both agree with expr.h on every rounding rule.
#ifndef PASSES_ANALYSIS_ARITH_INT_MATH_H_
#define PASSES_ANALYSIS_ARITH_INT_MATH_H_

#include <cstdint>
#include <optional>

#include "tile_ir/dtype.h"
#include "tile_ir/expr.h"

namespace tile_ir::arith {

// 128-bit intermediates hold any sum or product of two int64 values exactly.
using Wide = __int128;

// The values an integer or bool scalar of `dtype` can hold: bool is [0, 1],
// i4 [-8, 7], u8 [0, 255], ...
int64_t TypeMin(DataType dtype);
int64_t TypeMax(DataType dtype);
bool FitsIn(Wide value, DataType dtype);

// Division helpers; b must not be 0. Truncating as in C, or rounding down or up.
inline Wide TruncDiv(Wide a, Wide b) { return a / b; }
inline Wide TruncMod(Wide a, Wide b) { return a % b; }
inline Wide FloorDiv(Wide a, Wide b) {
  Wide q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline Wide FloorMod(Wide a, Wide b) { return a - FloorDiv(a, b) * b; }
inline Wide CeilDiv(Wide a, Wide b) {
  Wide q = a / b;
  return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}

// `a op b` for operands of the integer or bool type `dtype` (comparisons
// yield 0 or 1). nullopt for a division or modulo by zero and for a result
// that does not fit the result type: folding never guesses at overflow.
std::optional<int64_t> EvalIntBinary(BinaryOp op, int64_t a, int64_t b, DataType dtype);

}  // namespace tile_ir::arith

#endif  // PASSES_ANALYSIS_ARITH_INT_MATH_H_
