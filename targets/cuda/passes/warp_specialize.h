// The `warp-specialize` pass (cuda:sm_90a): gives the copies of a kernel's software pipeline
// to a producer warpgroup of their own, in which one thread issues them as TMA loads, so that
// the warps that compute (the consumers) never issue a copy or wait for one to be issued,
// only for its data to land.
//
// It runs on tile-level IR, after layout-inference and pipeline-planning and before
// inject-software-pipeline, on a kernel whose body holds one pipelined loop at its top level
// whose schedule issues its copies from global into shared memory ahead (stage 0, anywhere in
// the body, each before any use of its tile) and every other statement at the last stage, on
// two or more consumer warpgroups (one would lose half its blocks per SM to the producer's
// registers) whose fragments leave 32 registers per thread of the count setmaxnreg gives the
// consumers (RoleRegisters; ptxas allocates their code at it, above the kernel's entry count:
// H200 run 16). Each copy must be able to be a TMA load: a constant tile of at most 256 rows (a
// multiple of 8) of whole 128 bytes, from one matrix of a dense tensor parameter of rank 2 to
// 5 (the last two dimensions; one element of each other) with elements the TMA moves, whose
// row pitch is proved a multiple of 16 bytes (TmaTileWhyNot, tensor_maps.h), of the tensor's
// element type, read only as a 128-byte swizzled wgmma operand (the order the TMA's 128-byte
// swizzle writes). Adjacent copies form a group with two mbarriers per slot, full and empty (a
// gemm's A and B: one group; attention's K and V, copied before Q K^T and before P V: two);
// the consumers release a group's slot right after its last reader, so the producer refills
// K's slot while V's is still read. The consumers may
// use shared memory of their own (a staged epilogue): insert-barriers orders it inside their
// arm, the marker being `partitions_threads`. Allocations and the top-level lets that load
// nothing and name no let that does stay in front of the split; the copies may name only
// those. The kernel becomes (one group shown):
//
//   alloc <the copies' tiles, each with a leading stage dimension of num_stages slots>;
//   alloc ws_full: shared i64[S]; alloc ws_empty: shared i64[S];  // mbarriers, one per slot
//   eval cuda.mbarrier_init(ws_full[s], 1); eval cuda.mbarrier_init(ws_empty[s], T / 128); ...
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
//       <the loop's other statements, on tile[slot], each group's wait for its slot
//        eval cuda.mbarrier_wait_parity(ws_full[slot], round % 2) before its first reader>
//       eval cuda.mbarrier_arrive_warpgroup(ws_empty[slot]);  // after the group's last reader:
//     }                                                      // once per warpgroup
//     <the kernel's statements after the loop>
//   }
//
// The generic lowering passes then lower both branches with the kernel's T threads as
// before; the markers are replaced by the `warp-roles` pass, after insert-barriers, with a
// warpgroup of 128 more threads and its first thread (see warp_roles.h). With
// {persistent=on} each role loops over output tiles (persistent_tiles.h); with
// {tma_store=on} the consumers' output copies go through shared memory and the TMA
// (tma_stores.h). With {cluster=2}, a kernel of constant grid (even along x) and loop whose
// blocks x and x + 1 (x even) read the same tile of one copy at every iteration (checked block
// by block: a rasterized gemm's B) runs in clusters of two: that copy becomes
// cuda.tma_load_pair_<rank>d (each block loads half of the tile's 128-byte atom columns into
// both blocks, counting on both blocks' ws_full), the consumers release a slot with
// cuda.mbarrier_arrive_pair (on both blocks' ws_empty, which expects 2T / 128 arrivals, the
// producer waiting on it with cuda.mbarrier_wait_parity_cluster), and
// cuda.cluster_sync follows the initialization and ends the kernel. A kernel this pass
// cannot split keeps its pipelined loop for inject-software-pipeline, with a remark
// (`--remarks`) saying why.
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
