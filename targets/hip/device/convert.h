// Conversions with the tile IR's semantics: float to integer truncates toward
// zero, saturates and gives 0 for NaN (C++'s own cast is undefined out of
// range); f64 to f16 and bf16 round once to nearest even. saturate_to_range and
// saturate_to_i4 are tl/portable/convert.h.
#pragma once

#include <hip/hip_bfloat16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

#include "tl/portable/convert.h"

namespace tl {

template <typename T, typename F>
__device__ __forceinline__ T saturate_cast(F x) {
  static_assert(sizeof(T) == 0, "no saturating conversion to this type");
  return T();
}
#define TL_SATURATE_CAST(T, LO, HI)                                                      \
  template <>                                                                            \
  __device__ __forceinline__ T saturate_cast<T, float>(float x) {                        \
    return saturate_to_range<T>(x, LO, HI);                                              \
  }                                                                                      \
  template <>                                                                            \
  __device__ __forceinline__ T saturate_cast<T, double>(double x) {                      \
    return saturate_to_range<T>(x, LO, HI);                                              \
  }
TL_SATURATE_CAST(signed char, -128, 127)
TL_SATURATE_CAST(unsigned char, 0, 255)
TL_SATURATE_CAST(short, -32768, 32767)
TL_SATURATE_CAST(int, -2147483647LL - 1, 2147483647LL)
TL_SATURATE_CAST(unsigned short, 0, 65535)
TL_SATURATE_CAST(unsigned int, 0, 4294967295LL)
#undef TL_SATURATE_CAST

// i64: the bounds are not exact in float or double, so compare against 2^63.
template <>
__device__ __forceinline__ long long saturate_cast<long long, float>(float x) {
  if (x != x) return 0;
  if (x >= 9223372036854775808.0f) return 9223372036854775807LL;
  if (x < -9223372036854775808.0f) return -9223372036854775807LL - 1;
  return static_cast<long long>(x);
}
template <>
__device__ __forceinline__ long long saturate_cast<long long, double>(double x) {
  if (x != x) return 0;
  if (x >= 9223372036854775808.0) return 9223372036854775807LL;
  if (x < -9223372036854775808.0) return -9223372036854775807LL - 1;
  return static_cast<long long>(x);
}

template <>
__device__ __forceinline__ unsigned long long saturate_cast<unsigned long long, float>(float x) {
  return saturate_to_u64(x);
}
template <>
__device__ __forceinline__ unsigned long long saturate_cast<unsigned long long, double>(double x) {
  return saturate_to_u64(x);
}

// f64 -> f32 rounding toward zero with the inexact bit kept in the lowest
// significand bit ("round to odd"): a second rounding to a narrower type is
// then the same as one rounding of the f64 value.
__device__ __forceinline__ float double_to_float_odd(double x) {
  float truncated = __double2float_rz(x);
  if (static_cast<double>(truncated) != x && truncated == truncated) {
    truncated = __int_as_float(__float_as_int(truncated) | 1);
  }
  return truncated;
}

__device__ __forceinline__ __half double_to_half(double x) {
  return __float2half_rn(double_to_float_odd(x));
}
__device__ __forceinline__ hip_bfloat16 double_to_bf16(double x) {
  return hip_bfloat16(double_to_float_odd(x));
}
__device__ __forceinline__ hip_bfloat16 float_to_bf16(float x) { return hip_bfloat16(x); }
__device__ __forceinline__ float bf16_to_float(hip_bfloat16 x) { return static_cast<float>(x); }

}  // namespace tl
