// Sizes of the buffers a kernel declares: the shared pool the host launches
// with (or the kernel declares), and the arrays the code generator declares.
#ifndef TARGETS_C_SOURCE_SHARED_MEMORY_H_
#define TARGETS_C_SOURCE_SHARED_MEMORY_H_

#include <cstdint>
#include <optional>

#include "tile_ir/buffer.h"
#include "tile_ir/module.h"

namespace tile_ir::c_source {

// Elements a shared or local buffer spans (with declared strides, the
// farthest element + 1), or nullopt when its shape or strides are not constant.
std::optional<int64_t> BufferElements(const BufferNode& buffer);

// Bytes of the kernel's one shared-memory pool: the largest offset + size of
// its shared allocations (docs/LOWERING.md, "Shared memory"), 0 without any.
// Allocations without an offset or a constant size count as 0 bytes:
// CheckThreadLevel refuses them.
int64_t SharedMemoryBytes(const KernelNode& kernel);

}  // namespace tile_ir::c_source

#endif  // TARGETS_C_SOURCE_SHARED_MEMORY_H_
