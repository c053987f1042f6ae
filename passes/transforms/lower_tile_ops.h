// The `lower-tile-ops` pass (for the run's target): replaces every tile operation by
// loops over its elements, ready for thread binding (docs/LOWERING.md).
#ifndef PASSES_TRANSFORMS_LOWER_TILE_OPS_H_
#define PASSES_TRANSFORMS_LOWER_TILE_OPS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "passes/pass/pass.h"
#include "passes/pass/target_info.h"
#include "tile_ir/module.h"

namespace tile_ir::passes {

// Each tile operation is first checked with target.CheckTileOp for every
// element type it touches (the error is prefixed with the operation's
// location and kernel). T = target.ThreadsExecutingBlock(launch). Loops over
// elements are `parallel` (serial when they write a `local` buffer, which
// each thread holds whole), row-major with the last dimension innermost so it
// can be vectorized; dimensions of literal extent 1 get no loop. Loop
// variables get fresh names (i, j, k, ... made unique in the kernel).
// - copy: dst[...] = src[...], cast to dst's type when the types differ;
//   the two regions' non-unit dimensions are paired in order.
// - fill: dst[...] = value.
// - atomic_add: `eval atomic_add_at(dst[...], src[...])` per element.
// - gemm: target.LowerGemm when it gives a statement; otherwise multiply-adds
//   in C's type (A and B cast to it), after a fill with zero for clear_accum:
//   for T == 1 (or a local C) `for i serial { for k serial { for j parallel {
//   C[i, j] = C[i, j] + A[i, k] * B[k, j] } } }`, which walks rows of B and C
//   contiguously; for T > 1 `for i parallel { for j parallel { for k serial
//   {...} } }`, so that each thread accumulates the elements it owns, which
//   needs A and B outside fragments.
// - reduce: for each destination element (serial loops when T == 1,
//   parallel ones when T > 1) the element is initialised (with the identity
//   when clearing: 0 for sum, absmax, abssum, bitor and bitxor, -inf or the
//   type's minimum for max, +inf or its maximum for min, 1 for prod, every bit
//   set for bitand; with abs of its old value for absmax and abssum when
//   accumulating) and then combined with the source row in a serial loop
//   (+, max, min, max(acc, abs(x)), acc + abs(x), *, &, |, ^). With T > 1 and fragment operands, the row
//   and its destination must live on one thread (layout-inference arranges
//   this unless a user or target layout says otherwise); a reduction across
//   threads (warp shuffles) is a target's lowering and an error here.
// - cumsum: a parallel loop over the other dimensions around a serial scan
//   (from the end when reverse). With T > 1 a destination in shared memory is
//   scanned by a running sum in a local register (a parallel loop even over a
//   single row, so that one thread runs it), reading and writing each element
//   once at one index, so that insert-barriers sees each thread keep to its
//   row; fragment rows that lie across threads are staged through a shared
//   tile (`<src>_staged`) and scanned there so, with a remark.
// Copies between fragments at T > 1 require matching threads as well.
// Returns the same pointer when the kernel has no tile operation.
// `remarks`, when given, receives a line for each fragment staged through shared memory.
absl::StatusOr<Kernel> LowerTileOps(const Kernel& kernel, const TargetInfo& target,
                                    std::vector<std::string>* remarks = nullptr);

// Returns whether any kernel changed.
absl::StatusOr<bool> LowerTileOps(Module& module, const TargetInfo& target,
                                  std::vector<std::string>* remarks = nullptr);

PassInfo LowerTileOpsPass();

}  // namespace tile_ir::passes

#endif  // PASSES_TRANSFORMS_LOWER_TILE_OPS_H_
