// The contract the CUDA code generator accepts (docs/LOWERING.md, "Two levels
// in one IR" and "The CUDA calling convention"), checked before any code is
// emitted.
#ifndef TARGETS_CUDA_THREAD_LEVEL_CHECK_H_
#define TARGETS_CUDA_THREAD_LEVEL_CHECK_H_

#include "absl/status/status.h"
#include "tile_ir/module.h"

namespace tile_ir::cuda {

// OK when `kernel` (verified) is thread-level and its thread loops map onto
// CUDA's thread indices. Otherwise an error naming the kernel, the first
// offending node and its location:
//   - InvalidArgument: a kernel name that cannot be a CUDA symbol; a launch
//     CUDA cannot run (more than 1024 threads, a z extent over 64);
//   - Unimplemented: a tile operation, a parallel or pipelined loop, a
//     fragment buffer; a shared buffer without offset(N) (run
//     plan-shared-memory) or a shared or local buffer of non-constant size or
//     with a layout; a thread_bound loop that is not `for t in 0 +: E
//     thread_bound(a)` with E the launch's extent on axis a, at the kernel's
//     top (inside only other thread_bound loops), once per axis; and, when a
//     block runs more than one thread, a store, evaluation, barrier, loop or
//     if outside the thread_bound loops (every thread would run it).
absl::Status CheckCudaThreadLevel(const KernelNode& kernel);

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_THREAD_LEVEL_CHECK_H_
