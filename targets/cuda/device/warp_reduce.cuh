// Reductions across the 32 lanes of a warp by butterfly shuffles: every lane
// ends with the result. All 32 lanes must take part.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "tl/arith.cuh"

namespace tl {

// The value of `value` in lane (lane ^ mask) of this warp; every lane must call it together
// (the compiler's lane reductions: passes/analysis/lane_reduction.h).
template <typename T>
__device__ __forceinline__ T lane_shuffle_xor(T value, int mask) {
  return __shfl_xor_sync(0xffffffffu, value, mask);
}

template <typename T>
__device__ __forceinline__ T warp_reduce_sum(T value) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    value = value + __shfl_xor_sync(0xffffffffu, value, offset);
  }
  return value;
}

template <typename T>
__device__ __forceinline__ T warp_reduce_max(T value) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    value = tl::max(value, __shfl_xor_sync(0xffffffffu, value, offset));
  }
  return value;
}

template <typename T>
__device__ __forceinline__ T warp_reduce_min(T value) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    value = tl::min(value, __shfl_xor_sync(0xffffffffu, value, offset));
  }
  return value;
}

}  // namespace tl
