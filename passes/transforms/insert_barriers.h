// The `insert-barriers` pass: orders the shared-memory accesses of different threads with
// block barriers, where several threads execute a block.
#ifndef PASSES_TRANSFORMS_INSERT_BARRIERS_H_
#define PASSES_TRANSFORMS_INSERT_BARRIERS_H_

#include "absl/status/statusor.h"
#include "passes/pass/pass.h"
#include "passes/pass/target_info.h"
#include "tile_ir/module.h"

namespace tile_ir::passes {

// With T = target.ThreadsExecutingBlock(launch):
//
// T == 1: barriers order nothing, so every barrier is removed.
//
// T > 1 (conservative, per buffer, after thread-binding): walking the body in order and
// remembering which shared buffers each statement read and wrote since the last block
// barrier, a `barrier(block)` goes before a statement that reads a buffer another
// statement wrote, or writes a buffer another statement read or wrote. Loops are walked
// until what reaches their head again from the end of their body is covered (a barrier at
// the top of the body orders one iteration's accesses before the next's); before a loop or
// an `if` whose accesses need it, the barrier goes in front of the whole statement rather
// than into its body. A statement is not ordered against its own earlier iterations: the
// binding of elements to threads is the same in each (as thread-binding makes it).
//
// Branches and loops whose condition or bounds depend on the thread index (through a
// thread_bound loop variable, a let of one, or a load of local or fragment memory) are
// executed by some threads only, so no barrier can go inside them: they count as one
// statement, preceded by a barrier where needed. Inside one, a thread is expected to touch
// only what it owns: accesses to one shared buffer at different indices (a write and
// another access) are an error naming the statement, as is a block barrier there.
// A branch on an intrinsic marked `partitions_threads` (tile_ir/intrinsics.h: two groups of
// threads run its arms concurrently) is the exception: after a barrier of all threads where
// the branch as a whole needs one, each arm is walked as a block of its own, its barriers
// meaning its own threads' (the target lowers them to barriers of that group); nothing orders
// one arm's accesses against the other's here.
// Shared buffers that plan-shared-memory placed on overlapping bytes count as one buffer.
// Warp barriers are kept and order nothing across warps. `eval async_wait(n)` counts as
// every shared buffer landing there: a read after it needs a barrier, since each thread
// waits for its own asynchronous copies only.
absl::StatusOr<Kernel> InsertBarriers(const Kernel& kernel, const TargetInfo& target);
absl::StatusOr<bool> InsertBarriers(Module& module, const TargetInfo& target);

// The pass: `insert-barriers` (it lowers for the run's target).
PassInfo InsertBarriersPass();

}  // namespace tile_ir::passes

#endif  // PASSES_TRANSFORMS_INSERT_BARRIERS_H_
