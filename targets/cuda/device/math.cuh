// The tile IR's float intrinsics (tile_ir/intrinsics.h) on the types CUDA's
// math library lacks: f16 and bf16 compute in f32 and round once to nearest
// even (their own instructions where those exist: fma, abs), fp8 likewise.
// f32 and f64 code calls CUDA's math functions (expf, exp2, ...) directly.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

namespace tl {

__device__ __forceinline__ float widen(__half x) { return __half2float(x); }
__device__ __forceinline__ float widen(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float widen(__nv_fp8_e4m3 x) { return static_cast<float>(x); }
__device__ __forceinline__ float widen(__nv_fp8_e5m2 x) { return static_cast<float>(x); }

__device__ __forceinline__ __half narrow(float x, __half) { return __float2half_rn(x); }
__device__ __forceinline__ __nv_bfloat16 narrow(float x, __nv_bfloat16) {
  return __float2bfloat16_rn(x);
}
__device__ __forceinline__ __nv_fp8_e4m3 narrow(float x, __nv_fp8_e4m3) {
  return __nv_fp8_e4m3(x);
}
__device__ __forceinline__ __nv_fp8_e5m2 narrow(float x, __nv_fp8_e5m2) {
  return __nv_fp8_e5m2(x);
}

// One overload set per unary function, for every narrow float type T.
#define TL_NARROW_FLOAT_UNARY(name, f32_fn)                           \
  template <typename T>                                               \
  __device__ __forceinline__ T name(T x) {                            \
    return narrow(f32_fn(widen(x)), T());                             \
  }
TL_NARROW_FLOAT_UNARY(exp, expf)
TL_NARROW_FLOAT_UNARY(exp2, exp2f)
TL_NARROW_FLOAT_UNARY(log, logf)
TL_NARROW_FLOAT_UNARY(log2, log2f)
TL_NARROW_FLOAT_UNARY(sqrt, sqrtf)
TL_NARROW_FLOAT_UNARY(rsqrt, rsqrtf)
TL_NARROW_FLOAT_UNARY(tanh, tanhf)
TL_NARROW_FLOAT_UNARY(erf, erff)
TL_NARROW_FLOAT_UNARY(sin, sinf)
TL_NARROW_FLOAT_UNARY(cos, cosf)
TL_NARROW_FLOAT_UNARY(floor, floorf)
TL_NARROW_FLOAT_UNARY(ceil, ceilf)
// exp2_ftz (tile_ir/intrinsics.cc) is the ex2 instruction alone. exp2f runs the same
// instruction (both within 2 ulp) inside a range fix-up that keeps results below 2^-126
// subnormal: four instructions where this is one, which softmax loops feel.
__device__ __forceinline__ float exp2_ftz(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ double exp2_ftz(double x) { return ::exp2(x); }
TL_NARROW_FLOAT_UNARY(exp2_ftz, exp2_ftz)
#undef TL_NARROW_FLOAT_UNARY

template <typename T>
__device__ __forceinline__ T pow(T x, T y) {
  return narrow(powf(widen(x), widen(y)), T());
}

// fma rounds once: f16 and bf16 have the instruction; fp8 products of two
// 4-bit significands are exact in f32, so only the addition rounds twice.
__device__ __forceinline__ __half fma(__half x, __half y, __half z) { return __hfma(x, y, z); }
__device__ __forceinline__ __nv_bfloat16 fma(__nv_bfloat16 x, __nv_bfloat16 y, __nv_bfloat16 z) {
  return __hfma(x, y, z);
}
template <typename T>
__device__ __forceinline__ T fma(T x, T y, T z) {
  return narrow(fmaf(widen(x), widen(y), widen(z)), T());
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
