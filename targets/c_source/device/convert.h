// Float-to-integer conversions with the tile IR's semantics, the same on every vendor: truncate
// toward zero, saturate to the target's range, NaN gives 0 (C++'s own cast is undefined out of
// range). Each vendor's convert header builds its saturate_cast on saturate_to_range. And
// bit_cast, the IR's reinterpret.
#pragma once

#include "tl/prelude.h"

namespace tl {

// The bits of `from` read as a To of the same width (the IR's reinterpret).
template <typename To, typename From>
__device__ __forceinline__ To bit_cast(From from) {
  static_assert(sizeof(To) == sizeof(From), "reinterpret keeps the width");
  To to;
  memcpy(&to, &from, sizeof(To));
  return to;
}

template <typename T, typename F>
__device__ __forceinline__ T saturate_to_range(F x, long long lo, long long hi) {
  if (x != x) return 0;
  if (x <= static_cast<F>(lo)) return static_cast<T>(lo);
  if (x >= static_cast<F>(hi)) return static_cast<T>(hi);
  return static_cast<T>(x);
}

// u64's top is past long long: compare against 2^64, which float and double hold exactly.
template <typename F>
__device__ __forceinline__ unsigned long long saturate_to_u64(F x) {
  if (x != x || x <= static_cast<F>(0)) return 0;
  if (x >= static_cast<F>(18446744073709551616.0)) return 18446744073709551615ull;
  return static_cast<unsigned long long>(x);
}

// An i4 value (held in a signed char) from a float, saturated to [-8, 7].
template <typename F>
__device__ __forceinline__ signed char saturate_to_i4(F x) {
  return saturate_to_range<signed char>(x, -8, 7);
}

}  // namespace tl
