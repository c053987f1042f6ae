// CUDA's side of the portable device headers (targets/c_source/device/, "tl/portable/*.h"):
// what they use that each vendor spells its own way. The bf16 and fp8 types, their value in
// f32 and back (widen, narrow), the bits of f16, bf16 and fp8 (to_bits: an overload set, so it
// comes before the templates of tl::atomic_add and atomic_max that look it up), and exp2_ftz on
// f32.
// A .h among the .cuh: the portable headers include "tl/prelude.h" on every vendor.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

namespace tl {

__device__ __forceinline__ float widen(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float widen(__nv_fp8_e4m3 x) { return static_cast<float>(x); }
__device__ __forceinline__ float widen(__nv_fp8_e5m2 x) { return static_cast<float>(x); }

__device__ __forceinline__ __nv_bfloat16 narrow(float x, __nv_bfloat16) {
  return __float2bfloat16_rn(x);
}
__device__ __forceinline__ __nv_fp8_e4m3 narrow(float x, __nv_fp8_e4m3) {
  return __nv_fp8_e4m3(x);
}
__device__ __forceinline__ __nv_fp8_e5m2 narrow(float x, __nv_fp8_e5m2) {
  return __nv_fp8_e5m2(x);
}

__device__ __forceinline__ unsigned to_bits(__half v) { return __half_as_ushort(v); }
__device__ __forceinline__ unsigned to_bits(__nv_bfloat16 v) { return __bfloat16_as_ushort(v); }
__device__ __forceinline__ unsigned to_bits(__nv_fp8_e4m3 v) { return v.__x; }
__device__ __forceinline__ unsigned to_bits(__nv_fp8_e5m2 v) { return v.__x; }

// exp2_ftz (tile_ir/intrinsics.cc) is the ex2 instruction alone. exp2f runs the same
// instruction (both within 2 ulp) inside a range fix-up that keeps results below 2^-126
// subnormal: four instructions where this is one, which softmax loops feel.
__device__ __forceinline__ float exp2_ftz(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

}  // namespace tl
