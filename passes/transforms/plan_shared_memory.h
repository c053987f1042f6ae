// The `plan-shared-memory` pass: places a kernel's shared allocations in one pool of bytes,
// letting buffers whose lifetimes do not overlap share bytes.
#ifndef PASSES_TRANSFORMS_PLAN_SHARED_MEMORY_H_
#define PASSES_TRANSFORMS_PLAN_SHARED_MEMORY_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "passes/pass/pass.h"
#include "passes/pass/target_info.h"
#include "tile_ir/module.h"

namespace tile_ir::passes {

struct SharedMemoryPlan {
  Kernel kernel;  // every shared Allocate with its shared_offset
  // The pool's size: the largest offset + size. Targets recompute it from the offsets.
  int64_t total_bytes = 0;
};

// Live ranges: statements are numbered in order, and a buffer lives from its first to its
// last use, where a use inside a loop that does not declare the buffer stands for the whole
// loop (the next iteration may read what this one wrote). Sizes are SharedBufferBytes.
// Buffers are placed by decreasing size (ties by first use, then declaration order), each
// at the lowest offset, a multiple of 16 (or of what the target asks for the buffer:
// TargetInfo::SharedBufferAlignments, 1024 for CUDA's wgmma operand tiles), where it overlaps no
// placed buffer live at the same time. Offsets already present are replaced. An error naming the
// kernel and the buffer when a shared shape or stride is not constant, and naming the kernel, the
// total, the limit and the target when a target is given and its max_shared_memory_bytes() is
// exceeded.
absl::StatusOr<SharedMemoryPlan> PlanSharedMemory(const Kernel& kernel, const TargetInfo* target);

// The pass: `plan-shared-memory`; with the run's target it applies its limit and
// alignments (TargetInfo::SharedBufferAlignments), without one there is no limit.
PassInfo PlanSharedMemoryPass();

}  // namespace tile_ir::passes

#endif  // PASSES_TRANSFORMS_PLAN_SHARED_MEMORY_H_
