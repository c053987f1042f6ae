// The `warp-specialize` pass (cuda:sm_90a): gives the copies of a kernel's software pipeline
// to a producer warpgroup of their own, so that the warps that compute (the consumers) never
// issue a copy or wait for one to be issued, only for its data to land.
//
// It runs on tile-level IR, after layout-inference and pipeline-planning and before
// inject-software-pipeline, on a kernel whose body holds one pipelined loop at its top level
// whose body starts with the copies from global into shared memory that the loop's schedule
// issues ahead (stage 0) and goes on with the statements that use them. The kernel becomes:
//
//   alloc <the copies' tiles, each with a leading stage dimension of num_stages slots>;
//   alloc ws_full: shared i64[S]; alloc ws_empty: shared i64[S];  // mbarriers, one per slot
//   eval cuda.mbarrier_init(ws_full[s], 128); eval cuda.mbarrier_init(ws_empty[s], T); ...
//   if (cuda.producer_warps()) {
//     for k' ... serial {       // slot = k' % S, round = k' / S
//       eval cuda.mbarrier_wait_parity(ws_empty[slot], (round + 1) % 2);  // slot released
//       copy ... -> tile[slot];  ...  eval async_commit();
//       eval cuda.producer_commit(ws_full[slot]);   // arrives when the copies have landed
//     }
//     eval async_wait(0);
//   } else {
//     <the kernel's other statements before the loop>
//     for k ... serial {
//       eval cuda.mbarrier_wait_parity(ws_full[slot], round % 2);    // slot filled
//       <the loop's other statements, on tile[slot]>
//       eval cuda.mbarrier_arrive(ws_empty[slot]);                    // slot read
//     }
//     <the kernel's statements after the loop>
//   }
//
// The generic lowering passes then lower both branches with the kernel's T threads as
// before; cuda.producer_warps() is a marker that the `warp-roles` pass, after
// insert-barriers, replaces with a warpgroup of 128 more threads (see warp_roles.h). A
// kernel this pass cannot split keeps its pipelined loop for inject-software-pipeline, with
// a remark saying why.
#ifndef TARGETS_CUDA_PASSES_WARP_SPECIALIZE_H_
#define TARGETS_CUDA_PASSES_WARP_SPECIALIZE_H_

#include <string>
#include <vector>

#include "passes/pass/pass.h"
#include "tile_ir/module.h"

namespace tile_ir::cuda {

// The marker condition of the producer branch (a bool intrinsic taking no arguments).
inline constexpr char kProducerWarpsMarker[] = "cuda.producer_warps";
// Threads of the producer role: one warpgroup, the unit setmaxnreg reallocates.
inline constexpr int kProducerThreads = 128;

// Registers the intrinsics the warp-specialized kernels call (idempotent).
void RegisterWarpSpecializationIntrinsics();

// The kernel split into producer and consumers, or the same pointer with a reason appended
// to `why_not` (when not null) for each pipelined loop it left.
Kernel WarpSpecialize(const Kernel& kernel, std::vector<std::string>* why_not);

// The pass: `warp-specialize`. It lowers for the run's target, a CUDA one; it changes
// nothing where CudaTargetInfo::warp_specializes() is false (sm_80; sm_90a without
// {warp_specialize=on}).
//
// Limits today: the producer issues cp.async, so its copies must lower to cp.async (rows of
// whole 16-byte vectors, proved aligned); a copy left as ordinary stores fails in
// insert-barriers, which cannot see that the mbarriers order the two branches. TMA copies
// (one producer thread, no per-thread address math) are the next step.
passes::PassInfo WarpSpecializePass();

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_PASSES_WARP_SPECIALIZE_H_
