// The `inject-software-pipeline` pass: turns pipelined loops into a prologue, a steady
// state and an epilogue over multi-buffered shared tiles, or into serial loops.
#ifndef PASSES_TRANSFORMS_INJECT_SOFTWARE_PIPELINE_H_
#define PASSES_TRANSFORMS_INJECT_SOFTWARE_PIPELINE_H_

#include "absl/status/statusor.h"
#include "passes/pass/pass.h"
#include "passes/pass/target_info.h"
#include "tile_ir/module.h"

namespace tile_ir::passes {

// Rewrites every pipelined loop (runs before lower-tile-ops: its copies are tile ops).
//
// When `target` has asynchronous copies and the loop has S >= 2 stages, a loop
//   for k in m +: n pipelined(num_stages=S, ...) { BODY }
// whose schedule (planned as pipeline-planning does when order and stage are empty) puts
// copies from global into shared memory at stage 0 and every other statement at stage S - 1
// becomes
//   (for p = 0 .. S - 2)  if (p < n) { the copies of iteration m + p }  eval async_commit();
//   for k in m +: max(n - (S - 1), 0) serial {
//     eval async_wait(S - 2);
//     the copies of iteration k + S - 1;  eval async_commit();
//     the other statements of iteration k;
//   }
//   eval async_wait(0);
//   for k_epilogue in m + max(n - (S - 1), 0) +: min(n, S - 1) serial {
//     the other statements of iteration k_epilogue (declarations renamed);
//   }
// Each shared buffer a stage-0 copy fills gets a leading stage dimension [S, ...] (its
// strides, if any, gain the buffer's span; its layout, if any, a leading input mapped to a
// leading output), and every use re-indexes it with iteration i's slot (i - m) % S. The
// intrinsics async_commit and async_wait(N) mark where a target issuing asynchronous copies
// closes a group of copies and waits until at most N groups are in flight; the code stays
// correct where copies are synchronous. Statements keep their order within a stage; `order`
// is not used to reorder them.
//
// The loop becomes a plain serial loop with the same body when the target has no
// asynchronous copies, when S <= 1, and whenever the schedule cannot be realized: a stage
// other than 0 and S - 1, a stage-0 statement that is not a global-to-shared copy filling its
// whole destination, a destination filled twice, used by a statement before its copy,
// written by another statement, declared in the loop, used outside it, or used by a reduce,
// cumsum or atomic_add; a copy whose source the loop writes or whose bounds use a variable
// declared in the loop.
//
// A loop whose stages cannot fit the target's shared memory (num_stages times the bytes of
// the tiles its copies fill, more than max_shared_memory_bytes) is refused, naming the loop,
// the bytes and the limit. With a constant trip count n < S - 1, the prologue has n groups.
absl::StatusOr<Kernel> InjectSoftwarePipelines(const Kernel& kernel, const TargetInfo& target);
absl::StatusOr<bool> InjectSoftwarePipelines(Module& module, const TargetInfo& target);

// The pass: `inject-software-pipeline` (it lowers for the run's target).
PassInfo InjectSoftwarePipelinePass();

}  // namespace tile_ir::passes

#endif  // PASSES_TRANSFORMS_INJECT_SOFTWARE_PIPELINE_H_
