// The `bound-predication` pass: guards the global-memory accesses that may
// fall outside their tensor, which is what makes shapes that are not
// multiples of the tile (ragged shapes) correct.
#ifndef PASSES_TRANSFORMS_BOUND_PREDICATION_H_
#define PASSES_TRANSFORMS_BOUND_PREDICATION_H_

#include "absl/status/statusor.h"
#include "passes/pass/pass.h"
#include "tile_ir/module.h"

namespace tile_ir::passes {

// An index into dimension d of a global buffer is in bounds when 0 <= index
// and index < shape[d] are proved, by interval analysis and by symbolic
// bounds: loop variables range over [min, min + extent - 1], block indices
// over [0, extent - 1], symbolic dimensions are at least 1 and otherwise
// unknown, lets stand for their values. So `A[by * 128 + i, k]` in a grid of
// ceildiv(M, 128) rows needs a guard, while `A[i]` inside `for i in 0 +: M`
// does not. What cannot be proved becomes conditions (`index >= 0`,
// `index < size`):
// - a store becomes `if (conditions) { store }`, and so does the evaluation
//   of `atomic_add_at(dst[...], v)` (or atomic_max_at, atomic_min_at) whose first argument
//   addresses global memory;
// - a load becomes `select(conditions, A[clamped], 0)`, each index clamped with
//   max(index, 0) and min(index, size - 1) where needed, so that the load stays
//   in bounds even though select evaluates both of its values.
// A condition already known where an access sits (from an enclosing guard or
// if) is not repeated, so `C[x] = C[x] + ...` keeps one guard. A guard that
// is the whole body of a serial or unrolled loop gives the conditions that do
// not depend on the loop variable (and read no memory) to an `if` around the
// loop; guards stay inside parallel loops, whose nests thread binding maps.
// Tile operations on global regions must be lowered first (an error).
// Vector accesses are an error too: the pass runs before vectorize.
absl::StatusOr<Kernel> PredicateBounds(const Kernel& kernel);

// Returns whether any kernel changed.
absl::StatusOr<bool> PredicateBounds(Module& module);

PassInfo BoundPredicationPass();

}  // namespace tile_ir::passes

#endif  // PASSES_TRANSFORMS_BOUND_PREDICATION_H_
