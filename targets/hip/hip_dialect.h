// HIP C++ as a dialect of the C++-source code generator (targets/c_source):
// CUDA's kernel shape (__global__, __launch_bounds__, a dynamic extern
// __shared__ pool in LDS, threadIdx/blockIdx), hip_fp16's __half and
// hip_bfloat16, HIP's math functions, the wavefront barrier, and the "hip."
// intrinsics of the device library (device/*.h).
#ifndef TARGETS_HIP_HIP_DIALECT_H_
#define TARGETS_HIP_HIP_DIALECT_H_

#include "targets/c_source/dialect.h"

namespace tile_ir::hip {

inline constexpr char kHipIntrinsicPrefix[] = "hip.";

// The one HIP dialect; it holds no state.
const c_source::Dialect& HipDialect();

}  // namespace tile_ir::hip

#endif  // TARGETS_HIP_HIP_DIALECT_H_
