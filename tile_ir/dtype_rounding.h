// Float64 values rounded to the tile IR's element types: the operator suite's
// references and the test interpreter compute in float64 and round where a
// target would.
#ifndef TILE_IR_DTYPE_ROUNDING_H_
#define TILE_IR_DTYPE_ROUNDING_H_

#include "tile_ir/dtype.h"

namespace tile_ir {

// `value` rounded to the nearest value of `dtype` (ties to even; integers
// clamp to their range), as a double. f64 is the identity.
double RoundToDtype(double value, DataType dtype);

}  // namespace tile_ir

#endif  // TILE_IR_DTYPE_ROUNDING_H_
