// The `warp-roles` pass (cuda:sm_90a): gives the producer branch that warp-specialize marked
// (`if (cuda.producer_warps())`) threads of its own, once the generic passes have lowered both
// branches for the kernel's T threads and inserted their barriers.
//
// On thread-level IR (`for tx in 0 +: T thread_bound(x) { ... }`) it
//   - launches T + 128 threads: threads T .. T + 127 are the producer warpgroup, the first T
//     the consumers, whose code does not change;
//   - turns the marker into `tx >= T` and the leader's, inside it, into `tx == T` (the one
//     thread that issues the TMA loads; barriers inside its branch go, the mbarriers order
//     it); elsewhere in the producer branch tx becomes tx - T and a block barrier waits for
//     the producers only;
//   - turns every block barrier of the consumer branch into a named barrier of the T consumer
//     threads (a __syncthreads would wait for producers that never come), and the consumers'
//     leader marker (tma_stores.h) into `tx == 0`;
//   - keeps one wgmma group in flight across a consumer loop `wait; ...; gemm_wgmma; arrive`
//     whose other statements leave the accumulators alone: the gemm becomes gemm_wgmma_async,
//     the slot of the previous iteration is released after it (its group has retired then),
//     and cuda.wgmma_wait(C[0], 0, registers) follows the loop;
//   - with {pingpong=on} and two consumer warpgroups, makes them take turns issuing the first
//     gemm of each iteration of a (non-persistent) consumer loop that has two or more gemms,
//     through two mbarriers placed after the planned shared-memory pool (PingPong in
//     warp_roles.cc), as FlashAttention-3 does with named barriers;
//   - has thread 0 initialize the mbarriers, followed by the fence that publishes them and a
//     barrier of all threads;
//   - with two or more consumer warpgroups, moves registers from the producer warpgroup to
//     the consumers (setmaxnreg), as the register file of 65,536 would not hold them
//     otherwise.
// Runs after insert-barriers. A kernel without the marker is returned unchanged.
#ifndef TARGETS_CUDA_PASSES_WARP_ROLES_H_
#define TARGETS_CUDA_PASSES_WARP_ROLES_H_

#include <cstdint>
#include <limits>

#include "absl/status/statusor.h"
#include "passes/pass/pass.h"
#include "tile_ir/module.h"

namespace tile_ir::cuda {

// `pingpong`: the target's {pingpong=on}; its turn barriers go past the end of the planned
// shared-memory pool, which must stay within `shared_limit` bytes (an error naming the kernel
// otherwise).
absl::StatusOr<Kernel> BindWarpRoles(const Kernel& kernel, bool pingpong = false,
                                     int64_t shared_limit = std::numeric_limits<int64_t>::max());

// The pass: `warp-roles`.
passes::PassInfo WarpRolesPass();

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_PASSES_WARP_ROLES_H_
