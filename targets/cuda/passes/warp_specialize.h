// The `warp-specialize` pass (cuda:sm_90a): gives the copies of a kernel's software pipeline to a
// producer warpgroup whose one thread issues them as TMA loads, synchronized by mbarriers.
// Consumes: tile-level IR after pipeline-planning; a kernel with one top-level pipelined loop whose
//   global-to-shared copies (each loadable by the TMA) are at stage 0, the rest at the last stage.
// Produces: `if (cuda.producer_warps()) { producer loop } else { consumers }` over staged tiles and
//   ws_full / ws_empty mbarriers, which warp-roles gives threads; {persistent=on},
//   {tma_store=on} (the default) and {cluster=2} extend it (persistent_tiles.h, tma_stores.h,
//   cluster_pairs.h).
// Refuses: other kernels keep their loop, with a remark (--remarks) saying why; nothing changes on
//   sm_80 or with {warp_specialize=off}; a non-CUDA target is an error.
// Example: testdata/passes/warp-specialize/split.tile. Details: warp_specialize.md.
#ifndef TARGETS_CUDA_PASSES_WARP_SPECIALIZE_H_
#define TARGETS_CUDA_PASSES_WARP_SPECIALIZE_H_

#include <cstdint>
#include <utility>
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
// The consumers' release of a stage slot: one arrival per consumer warpgroup (its slot reads are
// all wgmma, which retire for the warpgroup as one); for a pair of blocks ({cluster=2}), one
// on each block's barrier. And the cluster barrier.
inline constexpr char kMbarrierArriveWarpgroup[] = "cuda.mbarrier_arrive_warpgroup";
inline constexpr char kMbarrierArrivePair[] = "cuda.mbarrier_arrive_pair";
inline constexpr char kClusterSync[] = "cuda.cluster_sync";
inline constexpr char kMbarrierWaitParityCluster[] = "cuda.mbarrier_wait_parity_cluster";
// Threads of the producer role: one warpgroup, the unit setmaxnreg reallocates.
inline constexpr int kProducerThreads = 128;
// 32-bit registers per SM (sm_90a), which the roles' register counts divide.
inline constexpr int64_t kRegisterFile = 65536;

// Registers per thread that setmaxnreg gives each role of a kernel with `consumer_threads`
// (a multiple of 128, at least 256) beside one producer warpgroup: {producer, consumer}.
std::pair<int, int> RoleRegisters(int64_t consumer_threads);

// Registers the intrinsics the warp-specialized kernels call (idempotent).
void RegisterWarpSpecializationIntrinsics();

// The kernel split into producer and consumers, or the same pointer with a reason appended
// to `remarks` (when not null) for each pipelined loop it left; a split kernel's remark says
// so (and whether it is persistent, or why not).
Kernel WarpSpecialize(const Kernel& kernel, const CudaTargetInfo& cuda,
                      std::vector<std::string>* remarks);

// The pass: `warp-specialize`. It lowers for the run's target, a CUDA one; it changes
// nothing where CudaTargetInfo::warp_specializes() is false (sm_80; sm_90a with
// {warp_specialize=off}).
passes::PassInfo WarpSpecializePass();

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_PASSES_WARP_SPECIALIZE_H_
