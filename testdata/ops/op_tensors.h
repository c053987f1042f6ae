// What a harness needs to run an OpCase: parameter shapes at bound dimensions,
// seeded random inputs rounded to their dtypes, and the tolerance check.
#ifndef TESTDATA_OPS_OP_TENSORS_H_
#define TESTDATA_OPS_OP_TENSORS_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "testdata/ops/op_suite.h"
#include "tile_ir/module.h"

namespace tile_ir::ops {

// The value of an integer shape expression (dims, integer literals, + - * /
// % min max floordiv floormod ceildiv, casts) with dims bound by name.
absl::StatusOr<int64_t> EvalShapeExpr(const Expr& expr, const Shapes& dims);
// The shape of a buffer parameter with dims bound.
absl::StatusOr<std::vector<int64_t>> ParamShape(const Param& param, const Shapes& dims);

// `value` rounded to the nearest value of `dtype` (ties to even; integers
// clamp to their range), as a double. f64 is the identity.
double RoundToDtype(double value, DataType dtype);

// A tensor for every buffer parameter of `kernel`: inputs drawn from
// op.inits (uniform [-1, 1) when absent) with a generator seeded by `seed` and
// rounded to the parameter's dtype; outputs zero-filled. Same seed, same data.
absl::StatusOr<RefTensors> MakeRefTensors(const OpCase& op, const KernelNode& kernel,
                                          const Shapes& dims, uint64_t seed);

// OK when |got - want| <= atol + rtol * |want| for every element (NaN never
// is); otherwise an error with the number of mismatches and the worst one.
absl::Status CheckClose(const RefTensor& got, const RefTensor& want, double atol, double rtol);

}  // namespace tile_ir::ops

#endif  // TESTDATA_OPS_OP_TENSORS_H_
