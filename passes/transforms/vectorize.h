// The `vectorize` pass: turns vectorized loops into vector expressions (ramp and broadcast)
// no wider than the target's widest vector access; what it cannot prove right stays serial.
#ifndef PASSES_TRANSFORMS_VECTORIZE_H_
#define PASSES_TRANSFORMS_VECTORIZE_H_

#include "passes/pass/pass.h"
#include "passes/pass/target_info.h"
#include "tile_ir/module.h"

namespace tile_ir::passes {

// A loop `for v in m +: E vectorized { B[..., f(v)] = value; }` is vectorized when E is a
// constant, the body is that single store, and:
// - in every access (the store and each load) the indices before the last do not depend
//   on v, and the last one is v + c (c not depending on v) for the store and either that or
//   independent of v for a load (read once and broadcast);
// - the value is made of literals, variables, loads, arithmetic, comparisons, casts and
//   selects (no calls);
// - every load from the stored buffer reads exactly the element stored (no dependence
//   between iterations), and every accessed buffer is dense in its last dimension and not
//   of a packed type (i4).
// With L the largest power of two with L <= E and L * (widest element bytes) <=
// target.max_vector_bytes(), the loop becomes one store of L lanes (`ramp(m, 1, L)` indices,
// `broadcast` of invariant values) when L == E, or `for v_outer in 0 +: E / L serial` around
// it (base m + v_outer * L) when L < E. Every other vectorized loop, and any with L < 2,
// becomes a serial loop with the same body. Buffers are assumed not to alias one another
// (kernel parameters are distinct tensors). Serial loops are never marked vectorized here.
Kernel VectorizeLoops(const Kernel& kernel, const TargetInfo& target);
bool VectorizeLoops(Module& module, const TargetInfo& target);

// The pass: `vectorize` (it lowers for the run's target).
PassInfo VectorizePass();

}  // namespace tile_ir::passes

#endif  // PASSES_TRANSFORMS_VECTORIZE_H_
