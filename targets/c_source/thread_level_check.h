// The contract the C++-source code generators accept (docs/LOWERING.md, "Two
// levels in one IR" and the calling conventions), checked before any code is
// emitted.
#ifndef TARGETS_C_SOURCE_THREAD_LEVEL_CHECK_H_
#define TARGETS_C_SOURCE_THREAD_LEVEL_CHECK_H_

#include "absl/status/status.h"
#include "targets/c_source/dialect.h"
#include "tile_ir/module.h"

namespace tile_ir::c_source {

// OK when `kernel` (verified) is thread-level and its thread loops map onto
// the dialect's thread indices. Otherwise an error naming the kernel, the
// first offending node and its location:
//   - InvalidArgument: a kernel name that cannot be a symbol of the dialect;
//     a launch over the dialect's limits (threads per block, z extent);
//   - Unimplemented: a type the dialect has no form for (Dialect::CheckType);
//     a tile operation, a parallel or pipelined loop, a fragment buffer; a
//     shared buffer without offset(N) (run plan-shared-memory) or a shared or
//     local buffer of non-constant size or with a layout; a thread_bound loop
//     that is not `for t in 0 +: E thread_bound(a)` with E the launch's extent
//     on axis a, at the kernel's top (inside only other thread_bound loops),
//     once per axis; and, when a block runs more than one thread, a store,
//     evaluation, barrier, loop or if outside the thread_bound loops (every
//     thread would run it).
absl::Status CheckThreadLevel(const KernelNode& kernel, const Dialect& dialect);

}  // namespace tile_ir::c_source

#endif  // TARGETS_C_SOURCE_THREAD_LEVEL_CHECK_H_
