// Integer and float arithmetic with the tile IR's semantics (tile_ir/expr.h): the portable
// part (tl/portable/arith.h) and the NaN-ignoring min/max of f16 and bf16; and the wavefront
// barrier.
#pragma once

#include <hip/hip_bfloat16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

#include "tl/portable/arith.h"

namespace tl {

template <>
__device__ __forceinline__ __half min(__half a, __half b) {
  return __float2half_rn(fminf(__half2float(a), __half2float(b)));
}
template <>
__device__ __forceinline__ __half max(__half a, __half b) {
  return __float2half_rn(fmaxf(__half2float(a), __half2float(b)));
}
template <>
__device__ __forceinline__ hip_bfloat16 min(hip_bfloat16 a, hip_bfloat16 b) {
  return hip_bfloat16(fminf(static_cast<float>(a), static_cast<float>(b)));
}
template <>
__device__ __forceinline__ hip_bfloat16 max(hip_bfloat16 a, hip_bfloat16 b) {
  return hip_bfloat16(fmaxf(static_cast<float>(a), static_cast<float>(b)));
}

// barrier(warp): the 64 lanes of a wavefront run in lock step, so ordering
// their shared-memory accesses needs only fences at wavefront scope around
// the scheduling barrier (CUDA's __syncwarp has no HIP counterpart).
__device__ __forceinline__ void wave_barrier() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}

// The software pipeline's group commit and wait: copies are synchronous on
// this target (has_async_copy is false), so there is nothing to wait for.
__device__ __forceinline__ void cp_async_commit() {}
template <int N>
__device__ __forceinline__ void cp_async_wait() {}

}  // namespace tl
