// Integer interval analysis: the closed range of values an integer or bool
// expression can take, given ranges for its variables.
#ifndef PASSES_ANALYSIS_ARITH_INTERVAL_H_
#define PASSES_ANALYSIS_ARITH_INTERVAL_H_

#include <cstdint>

#include "tile_ir/dtype.h"
#include "tile_ir/expr.h"

namespace tile_ir::arith {

// [min, max], both inclusive, always inside the range of the expression's
// type. Overflow is taken to wrap around, so an operation whose exact result
// could leave the type's range yields the whole range: the analysis stays
// sound whatever a backend does on overflow.
struct IntInterval {
  int64_t min;
  int64_t max;

  static IntInterval Point(int64_t value) { return {value, value}; }
  // Every value of an integer or bool type.
  static IntInterval Full(DataType dtype);

  bool is_point() const { return min == max; }

  friend bool operator==(IntInterval a, IntInterval b) { return a.min == b.min && a.max == b.max; }
};

// The smallest interval holding both.
IntInterval Union(IntInterval a, IntInterval b);

// The range of `a op b` for operands in `a` and `b` of the integer or bool
// type `operand_type`; comparisons and logic give a bool range ([0, 1] when
// undecided, a point when decided).
IntInterval BinaryInterval(BinaryOp op, IntInterval a, IntInterval b, DataType operand_type);
IntInterval UnaryInterval(UnaryOp op, IntInterval a, DataType dtype);
// The range after converting integer or bool values in `a` to the type `to`.
IntInterval CastInterval(IntInterval a, DataType to);

}  // namespace tile_ir::arith

#endif  // PASSES_ANALYSIS_ARITH_INTERVAL_H_
