// A direct, slow evaluator of tile-level kernels over float64 tensors. It
// checks that the suite's kernels compute their references (masks, online
// softmax, im2col indexing, ragged edges) independently of any lowering pass
// or backend, so a failure on a target points at the target.
#ifndef OPS_TILE_EVALUATOR_H_
#define OPS_TILE_EVALUATOR_H_

#include <map>
#include <string>

#include "absl/status/status.h"
#include "ops/op_suite.h"
#include "tile_ir/module.h"

namespace tile_ir::ops {

// Runs every block of `kernel`'s grid in turn on `tensors` (every buffer
// parameter by name, as MakeRefTensors makes them), with dims and scalar
// parameters bound. Semantics:
// - Loops of every kind run in order; barriers do nothing.
// - Global accesses outside their tensor read 0 and write nothing, as
//   bound-predication makes them. Any other out-of-bounds access is an error.
// - Shared, fragment and local buffers start as NaN, so an element read
//   before it is written poisons the outputs.
// - Every float result is rounded to its expression's dtype, every store to
//   its buffer's dtype. gemm and reduce_sum accumulate in the accumulator's
//   dtype in index order, rounding each product and each sum, as a sequential
//   target does: the way to check that an op's tolerance covers fp32 sums.
// Vector expressions (ramp, broadcast), atomic_add and cumsum are errors:
// the suite's kernels use none.
absl::Status EvaluateKernel(const KernelNode& kernel, const Shapes& dims,
                            const std::map<std::string, double>& scalars, RefTensors& tensors);

}  // namespace tile_ir::ops

#endif  // OPS_TILE_EVALUATOR_H_
