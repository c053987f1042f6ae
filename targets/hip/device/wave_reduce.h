// Reductions across the 64 lanes of a wavefront (CDNA's warp) by butterfly
// shuffles: every lane ends with the result. All 64 lanes must take part.
// Portable __shfl_xor (ds_bpermute) rather than DPP, which would need
// per-architecture row masks. Values cross lanes as 32-bit words: HIP's
// __shfl_xor has overloads for int, float, double and the 64-bit integers
// only, so a __half or hip_bfloat16 (which convert to several of them)
// makes the call ambiguous.
#pragma once

#include <hip/hip_runtime.h>

#include "tl/arith.h"

namespace tl {

constexpr int kWaveSize = 64;

// The value of `value` in lane (lane ^ mask) of this wavefront; every lane must call it
// together (the compiler's lane reductions: passes/analysis/lane_reduction.h).
template <typename T>
__device__ __forceinline__ T lane_shuffle_xor(T value, int mask) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8,
                "lane_shuffle_xor moves 16-, 32- and 64-bit values");
  if constexpr (sizeof(T) == 8) {
    return __builtin_bit_cast(T, __shfl_xor(__builtin_bit_cast(long long, value), mask,
                                            kWaveSize));
  } else if constexpr (sizeof(T) == 4) {
    return __builtin_bit_cast(T, __shfl_xor(__builtin_bit_cast(int, value), mask, kWaveSize));
  } else {
    int word = __builtin_bit_cast(unsigned short, value);
    return __builtin_bit_cast(T, static_cast<unsigned short>(__shfl_xor(word, mask, kWaveSize)));
  }
}

template <typename T>
__device__ __forceinline__ T wave_reduce_sum(T value) {
#pragma unroll
  for (int offset = kWaveSize / 2; offset > 0; offset /= 2) {
    value = value + lane_shuffle_xor(value, offset);
  }
  return value;
}

template <typename T>
__device__ __forceinline__ T wave_reduce_max(T value) {
#pragma unroll
  for (int offset = kWaveSize / 2; offset > 0; offset /= 2) {
    value = tl::max(value, lane_shuffle_xor(value, offset));
  }
  return value;
}

template <typename T>
__device__ __forceinline__ T wave_reduce_min(T value) {
#pragma unroll
  for (int offset = kWaveSize / 2; offset > 0; offset /= 2) {
    value = tl::min(value, lane_shuffle_xor(value, offset));
  }
  return value;
}

}  // namespace tl
