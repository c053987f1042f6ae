// The `async-copies` pass: copies that a software pipeline issues ahead of their use become
// the target's asynchronous copies (cp.async on NVIDIA GPUs), so that the loads of later
// stages overlap the compute of the current one instead of stalling each thread.
#ifndef PASSES_TRANSFORMS_ASYNC_COPIES_H_
#define PASSES_TRANSFORMS_ASYNC_COPIES_H_

#include "passes/pass/pass.h"
#include "passes/pass/target_info.h"
#include "tile_ir/module.h"

namespace tile_ir::passes {

// In every block, the statements before an `eval async_commit()` (the producer stages that
// inject-software-pipeline schedules, waited for by a later `async_wait`) are searched for
// vector stores `S[..., ramp(a, 1, L)] = G[..., ramp(b, 1, L)]` from a global buffer G to a
// shared buffer S of the same element type, moving 4, 8 or 16 bytes with both addresses
// proved aligned to that size (global buffers start 16-byte aligned, shared ones at
// plan-shared-memory's 16-byte offsets; indices are proved multiples of powers of two
// through lets, sums, products and remainders). Each becomes target.AsyncCopy(S[..., a],
// G[..., b], bytes). Other stores, and targets without async copies, stay as they are.
// Runs after vectorize.
Kernel MakeCopiesAsync(const Kernel& kernel, const TargetInfo& target);
bool MakeCopiesAsync(Module& module, const TargetInfo& target);

// The pass: `async-copies` (it lowers for the run's target).
PassInfo AsyncCopiesPass();

}  // namespace tile_ir::passes

#endif  // PASSES_TRANSFORMS_ASYNC_COPIES_H_
