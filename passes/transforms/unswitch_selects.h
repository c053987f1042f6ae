// The `unswitch-selects` pass: a select inside a parallel nest whose condition holds on the
// whole nest is decided once for the nest.
#ifndef PASSES_TRANSFORMS_UNSWITCH_SELECTS_H_
#define PASSES_TRANSFORMS_UNSWITCH_SELECTS_H_

#include "absl/status/statusor.h"
#include "passes/pass/pass.h"
#include "tile_ir/module.h"

namespace tile_ir::passes {

// A mask over a tile, `S[i, j] = select(k * 128 + j < N && r * 128 + i >= k * 128 + j, x, y)`
// (a ragged edge, a causal diagonal), costs a compare and a select per element, yet at most
// iterations of the loops around it the condition holds for every element of the tile: it is
// false only on the edge or the diagonal. For a nest of parallel loops of constant bounds whose
// body reads selects with such conditions, conjunctions of comparisons between expressions
// affine in the nest's variables (integer coefficients; the rest names nothing the nest
// defines), the nest becomes
//
//   if (<each comparison holds at its worst corner of the nest>) { the nest, each such select
//   replaced by its true arm } else { the nest as written }
//
// where the worst corner of `a >= b` is the minimum of a - b over the nest's box. The branch
// depends on no nest variable, so every thread of a block takes the same one. Returns the same
// pointer for a kernel without such a nest.
absl::StatusOr<Kernel> UnswitchSelects(const Kernel& kernel);

PassInfo UnswitchSelectsPass();

}  // namespace tile_ir::passes

#endif  // PASSES_TRANSFORMS_UNSWITCH_SELECTS_H_
