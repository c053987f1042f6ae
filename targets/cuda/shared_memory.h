// Sizes of the buffers a kernel declares: what the host passes as the launch's
// dynamic shared memory, and the arrays the code generator declares.
#ifndef TARGETS_CUDA_SHARED_MEMORY_H_
#define TARGETS_CUDA_SHARED_MEMORY_H_

#include <cstdint>
#include <optional>

#include "tile_ir/buffer.h"
#include "tile_ir/module.h"

namespace tile_ir::cuda {

// Elements a shared or local buffer spans (with declared strides, the
// farthest element + 1), or nullopt when its shape or strides are not constant.
std::optional<int64_t> BufferElements(const BufferNode& buffer);

// Bytes of the kernel's one shared-memory pool: the largest offset + size of
// its shared allocations (docs/LOWERING.md, "Shared memory"), 0 without any.
// The host launches the kernel with this much dynamic shared memory (and,
// above 48 KiB, raises cudaFuncAttributeMaxDynamicSharedMemorySize first).
// Allocations without an offset or a constant size count as 0 bytes:
// CheckCudaThreadLevel refuses them.
int64_t SharedMemoryBytes(const KernelNode& kernel);

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_SHARED_MEMORY_H_
