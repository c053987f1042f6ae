// The contract the CPU code generator accepts (docs/LOWERING.md, "Two levels
// in one IR"), checked before any LLVM IR is built.
#ifndef TARGETS_CPU_THREAD_LEVEL_CHECK_H_
#define TARGETS_CPU_THREAD_LEVEL_CHECK_H_

#include "absl/status/status.h"
#include "tile_ir/module.h"

namespace tile_ir::cpu {

// OK when every kernel of a verified module is thread-level and runnable by
// executing a block's threads one after another on one core. Otherwise
// Unimplemented naming the kernel, the first offending node and its location:
//   - a tile operation (copy, gemm, fill, reduce, atomic_add, cumsum),
//   - a parallel or pipelined loop, a fragment buffer,
//   - a barrier inside a thread_bound loop (it would need thread emulation),
//   - a local buffer declared outside a thread_bound loop and used inside it
//     and elsewhere too: each GPU thread has its own copy, but the CPU runs the
//     threads one after another over a single copy, so the values one thread
//     keeps there would be overwritten by the next.
absl::Status CheckCpuThreadLevel(const Module& module);

}  // namespace tile_ir::cpu

#endif  // TARGETS_CPU_THREAD_LEVEL_CHECK_H_
