// The tile IR's float intrinsics (tile_ir/intrinsics.h) on f16 and bf16:
// computed in f32 and rounded once to nearest even (tl/portable/math.h, and
// abs here). fma rounds twice, through f32, where CUDA's __hfma rounds once:
// HIP 5.2 has no bf16 fma to match. f32 and f64 code calls HIP's math
// functions (expf, exp2, ...) directly.
#pragma once

#include <hip/hip_bfloat16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

#include "tl/portable/math.h"

namespace tl {

template <typename T>
__device__ __forceinline__ T abs(T x, int) {
  return narrow(fabsf(widen(x)), T());
}
__device__ __forceinline__ __half abs(__half x) { return abs(x, 0); }
__device__ __forceinline__ hip_bfloat16 abs(hip_bfloat16 x) { return abs(x, 0); }

}  // namespace tl
