// Reductions across the 64 lanes of a wavefront (CDNA's warp) by butterfly
// shuffles: every lane ends with the result. All 64 lanes must take part.
// Portable __shfl_xor (ds_bpermute) rather than DPP, which would need
// per-architecture row masks.
#pragma once

#include <hip/hip_runtime.h>

#include "tl/arith.h"

namespace tl {

constexpr int kWaveSize = 64;

// The value of `value` in lane (lane ^ mask) of this wavefront; every lane must call it
// together (the compiler's lane reductions: passes/analysis/lane_reduction.h).
template <typename T>
__device__ __forceinline__ T lane_shuffle_xor(T value, int mask) {
  return __shfl_xor(value, mask, kWaveSize);
}

template <typename T>
__device__ __forceinline__ T wave_reduce_sum(T value) {
#pragma unroll
  for (int offset = kWaveSize / 2; offset > 0; offset /= 2) {
    value = value + __shfl_xor(value, offset, kWaveSize);
  }
  return value;
}

template <typename T>
__device__ __forceinline__ T wave_reduce_max(T value) {
#pragma unroll
  for (int offset = kWaveSize / 2; offset > 0; offset /= 2) {
    value = tl::max(value, __shfl_xor(value, offset, kWaveSize));
  }
  return value;
}

template <typename T>
__device__ __forceinline__ T wave_reduce_min(T value) {
#pragma unroll
  for (int offset = kWaveSize / 2; offset > 0; offset /= 2) {
    value = tl::min(value, __shfl_xor(value, offset, kWaveSize));
  }
  return value;
}

}  // namespace tl
