// The `warp-roles` pass (cuda:sm_90a): gives the producer branch that warp-specialize marked
// threads of its own, once both branches are lowered for the kernel's T threads.
// Consumes: thread-level IR after insert-barriers, with `if (cuda.producer_warps())`.
// Produces: T + 128 threads (the producer `tx >= T`, its leader `tx == T`), the roles' barriers
//   as named barriers, thread 0's mbarrier initialization, setmaxnreg beside two or more consumer
//   warpgroups, one wgmma group kept in flight in consumer loops; with {pingpong=on}, turns.
// Refuses: nothing it can leave (a kernel without the marker is returned unchanged); errors name
//   the kernel when ping-pong's turn barriers pass the target's shared-memory limit.
// Example: testdata/passes/warp-roles/roles.tile. Details: warp_roles.md.
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
