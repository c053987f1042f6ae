// Integer and float arithmetic with the tile IR's semantics (tile_ir/expr.h), the same on every
// vendor: rounding divisions, min/max of integers, f32 and f64, 4-bit wrap-around, integer
// absolute values, infinities. Each vendor's arith header adds min/max of its narrow floats.
#pragma once

#include "tl/prelude.h"

namespace tl {

// Rounds toward negative infinity (C's / truncates toward zero).
template <typename T>
__device__ __forceinline__ T floordiv(T a, T b) {
  T q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? static_cast<T>(q - 1) : q;
}

// The remainder of floordiv: it has the sign of b.
template <typename T>
__device__ __forceinline__ T floormod(T a, T b) {
  T r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? static_cast<T>(r + b) : r;
}

// Rounds toward positive infinity.
template <typename T>
__device__ __forceinline__ T ceildiv(T a, T b) {
  T q = a / b;
  return (a % b != 0 && ((a < 0) == (b < 0))) ? static_cast<T>(q + 1) : q;
}

// min and max: integers compare; floats return the operand that is not NaN.
template <typename T>
__device__ __forceinline__ T min(T a, T b) {
  return b < a ? b : a;
}
template <typename T>
__device__ __forceinline__ T max(T a, T b) {
  return a < b ? b : a;
}
template <>
__device__ __forceinline__ float min(float a, float b) { return fminf(a, b); }
template <>
__device__ __forceinline__ float max(float a, float b) { return fmaxf(a, b); }
template <>
__device__ __forceinline__ double min(double a, double b) { return fmin(a, b); }
template <>
__device__ __forceinline__ double max(double a, double b) { return fmax(a, b); }

// An i4 value (held in a signed char) wrapped to [-8, 7] as 4-bit two's complement.
__device__ __forceinline__ signed char wrap_i4(int x) {
  return static_cast<signed char>(static_cast<signed char>(static_cast<unsigned>(x) << 4) >> 4);
}

// Absolute values of the integer types (narrow ones wrap like the IR: |-128| is -128).
template <typename T>
__device__ __forceinline__ T abs(T a) {
  return a < 0 ? static_cast<T>(-a) : a;
}

template <typename T>
__device__ __forceinline__ T infinity();
template <>
__device__ __forceinline__ float infinity<float>() { return __int_as_float(0x7f800000); }
template <>
__device__ __forceinline__ double infinity<double>() {
  return __longlong_as_double(0x7ff0000000000000LL);
}

template <typename T>
__device__ __forceinline__ T quiet_nan();
template <>
__device__ __forceinline__ float quiet_nan<float>() { return __int_as_float(0x7fc00000); }
template <>
__device__ __forceinline__ double quiet_nan<double>() {
  return __longlong_as_double(0x7ff8000000000000LL);
}

}  // namespace tl
