// The `warp-specialize` pass (cuda:sm_90a): gives the copies of a kernel's software pipeline
// to a producer warpgroup of their own, in which one thread issues them as TMA loads, so that
// the warps that compute (the consumers) never issue a copy or wait for one to be issued,
// only for its data to land.
//
// It runs on tile-level IR, after layout-inference and pipeline-planning and before
// inject-software-pipeline, on a kernel whose body holds one pipelined loop at its top level
// whose body starts with the copies from global into shared memory that the loop's schedule
// issues ahead (stage 0) and goes on with the statements that use them, on two or more
// consumer warpgroups (one would lose half its blocks per SM to the producer's registers).
// Each copy must be
// able to be a TMA load: a constant tile of at most 256 rows (a multiple of 8) of whole 128
// bytes, from a dense 2-D tensor parameter whose row pitch is proved a multiple of 16 bytes,
// read only as a 128-byte swizzled wgmma operand (the order the TMA's 128-byte swizzle
// writes). The kernel becomes:
//
//   alloc <the copies' tiles, each with a leading stage dimension of num_stages slots>;
//   alloc ws_full: shared i64[S]; alloc ws_empty: shared i64[S];  // mbarriers, one per slot
//   eval cuda.mbarrier_init(ws_full[s], 1); eval cuda.mbarrier_init(ws_empty[s], T); ...
//   if (cuda.producer_warps()) {
//     if (cuda.producer_leader()) {
//       for k' ... serial {       // slot = k' % S, round = k' / S
//         eval cuda.mbarrier_wait_parity(ws_empty[slot], (round + 1) % 2);  // slot released
//         eval cuda.mbarrier_arrive_expect_tx(ws_full[slot], <bytes of the stage's tiles>);
//         eval cuda.tma_load_2d(tile[slot, 0, 0], A[0, 0], ws_full[slot], row, col, R, C);
//         ...                     // one load per copy (targets/cuda/tensor_maps.h)
//       }
//     }
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
// before; the markers are replaced by the `warp-roles` pass, after insert-barriers, with a
// warpgroup of 128 more threads and its first thread (see warp_roles.h). A kernel this pass
// cannot split keeps its pipelined loop for inject-software-pipeline, with a remark
// (`--remarks`) saying why.
#ifndef TARGETS_CUDA_PASSES_WARP_SPECIALIZE_H_
#define TARGETS_CUDA_PASSES_WARP_SPECIALIZE_H_

#include <string>
#include <vector>

#include "passes/pass/pass.h"
#include "targets/cuda/cuda_target_info.h"
#include "tile_ir/module.h"

namespace tile_ir::cuda {

// The marker condition of the producer branch (a bool intrinsic taking no arguments).
inline constexpr char kProducerWarpsMarker[] = "cuda.producer_warps";
// The marker condition, inside the producer branch, of the one thread that issues TMA loads.
inline constexpr char kProducerLeaderMarker[] = "cuda.producer_leader";
// Threads of the producer role: one warpgroup, the unit setmaxnreg reallocates.
inline constexpr int kProducerThreads = 128;

// Registers the intrinsics the warp-specialized kernels call (idempotent).
void RegisterWarpSpecializationIntrinsics();

// The kernel split into producer and consumers, or the same pointer with a reason appended
// to `why_not` (when not null) for each pipelined loop it left.
Kernel WarpSpecialize(const Kernel& kernel, const CudaTargetInfo& cuda,
                      std::vector<std::string>* why_not);

// The pass: `warp-specialize`. It lowers for the run's target, a CUDA one; it changes
// nothing where CudaTargetInfo::warp_specializes() is false (sm_80; sm_90a with
// {warp_specialize=off}).
passes::PassInfo WarpSpecializePass();

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_PASSES_WARP_SPECIALIZE_H_
