// The tile IR's float intrinsics (tile_ir/intrinsics.h) on the types CUDA's
// math library lacks: f16, bf16 and fp8 compute in f32 and round once to
// nearest even (tl/portable/math.h), or use their own instructions where those
// exist: fma and abs, here. f32 and f64 code calls CUDA's math functions
// (expf, exp2, ...) directly.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "tl/portable/math.h"

namespace tl {

// fma rounds once: f16 and bf16 have the instruction; fp8 products of two
// 4-bit significands are exact in f32, so only the addition rounds twice.
__device__ __forceinline__ __half fma(__half x, __half y, __half z) { return __hfma(x, y, z); }
__device__ __forceinline__ __nv_bfloat16 fma(__nv_bfloat16 x, __nv_bfloat16 y, __nv_bfloat16 z) {
  return __hfma(x, y, z);
}

__device__ __forceinline__ __half abs(__half x) { return __habs(x); }
__device__ __forceinline__ __nv_bfloat16 abs(__nv_bfloat16 x) { return __habs(x); }
__device__ __forceinline__ __nv_fp8_e4m3 abs(__nv_fp8_e4m3 x) {
  __nv_fp8_e4m3 r;
  r.__x = static_cast<__nv_fp8_storage_t>(x.__x & 0x7f);
  return r;
}
__device__ __forceinline__ __nv_fp8_e5m2 abs(__nv_fp8_e5m2 x) {
  __nv_fp8_e5m2 r;
  r.__x = static_cast<__nv_fp8_storage_t>(x.__x & 0x7f);
  return r;
}

}  // namespace tl
