// CUDA C++ as a dialect of the C++-source code generator (targets/c_source):
// __global__ kernels with __launch_bounds__, the dynamic shared pool, cuda_fp16
// / cuda_bf16 / cuda_fp8 types, CUDA's math functions, cp.async waits and the
// "cuda." intrinsics of the device library (intrinsics.h).
#ifndef TARGETS_CUDA_CUDA_DIALECT_H_
#define TARGETS_CUDA_CUDA_DIALECT_H_

#include "targets/c_source/dialect.h"

namespace tile_ir::cuda {

// The one CUDA dialect; it holds no state.
const c_source::Dialect& CudaDialect();

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_CUDA_DIALECT_H_
