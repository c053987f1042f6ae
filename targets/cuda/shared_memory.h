// Sizes of the buffers a kernel declares: what the host passes as the launch's
// dynamic shared memory (targets/c_source/shared_memory.h, shared by every
// C++-source target).
#ifndef TARGETS_CUDA_SHARED_MEMORY_H_
#define TARGETS_CUDA_SHARED_MEMORY_H_

#include "targets/c_source/shared_memory.h"

namespace tile_ir::cuda {

// The host launches a kernel with SharedMemoryBytes(kernel) of dynamic shared
// memory (and, above 48 KiB, raises cudaFuncAttributeMaxDynamicSharedMemorySize first).
using c_source::BufferElements;
using c_source::SharedMemoryBytes;

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_SHARED_MEMORY_H_
