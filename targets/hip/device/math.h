// The tile IR's float intrinsics (tile_ir/intrinsics.h) on f16 and bf16:
// computed in f32 and rounded once to nearest even. f32 and f64 code calls
// HIP's math functions (expf, exp2, ...) directly.
#pragma once

#include <hip/hip_bfloat16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

namespace tl {

__device__ __forceinline__ float widen(__half x) { return __half2float(x); }
__device__ __forceinline__ float widen(hip_bfloat16 x) { return static_cast<float>(x); }

__device__ __forceinline__ __half narrow(float x, __half) { return __float2half_rn(x); }
__device__ __forceinline__ hip_bfloat16 narrow(float x, hip_bfloat16) { return hip_bfloat16(x); }

// One overload set per unary function, for every narrow float type T.
#define TL_NARROW_FLOAT_UNARY(name, f32_fn) \
  template <typename T>                     \
  __device__ __forceinline__ T name(T x) {  \
    return narrow(f32_fn(widen(x)), T());   \
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
// exp2_ftz (tile_ir/intrinsics.cc) may flush results below the smallest normal to zero; it
// need not, and here it is exp2f.
__device__ __forceinline__ float exp2_ftz(float x) { return exp2f(x); }
__device__ __forceinline__ double exp2_ftz(double x) { return ::exp2(x); }
TL_NARROW_FLOAT_UNARY(exp2_ftz, exp2_ftz)
#undef TL_NARROW_FLOAT_UNARY

template <typename T>
__device__ __forceinline__ T pow(T x, T y) {
  return narrow(powf(widen(x), widen(y)), T());
}

// fma: the product of two 11- or 8-bit significands is exact in f32; the sum
// rounds to f32, then to the narrow type (two roundings, where CUDA's __hfma
// rounds once: HIP 5.2 has no bf16 fma to match).
template <typename T>
__device__ __forceinline__ T fma(T x, T y, T z) {
  return narrow(fmaf(widen(x), widen(y), widen(z)), T());
}

template <typename T>
__device__ __forceinline__ T abs(T x, int) {
  return narrow(fabsf(widen(x)), T());
}
__device__ __forceinline__ __half abs(__half x) { return abs(x, 0); }
__device__ __forceinline__ hip_bfloat16 abs(hip_bfloat16 x) { return abs(x, 0); }

}  // namespace tl
