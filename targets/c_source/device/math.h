// The tile IR's float intrinsics (tile_ir/intrinsics.h) on the narrow float types, the same on
// every vendor: computed in f32 and rounded once to nearest even (widen and narrow; those of
// the types other than f16 are the vendor's, tl/prelude.h). Each vendor's math header adds
// what its types have instructions for (fma, abs). f32 and f64 code calls the vendor's math
// functions (expf, exp2, ...) directly.
#pragma once

#include "tl/prelude.h"

namespace tl {

__device__ __forceinline__ float widen(__half x) { return __half2float(x); }
__device__ __forceinline__ __half narrow(float x, __half) { return __float2half_rn(x); }

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
// exp2_ftz (tile_ir/intrinsics.cc) on f32 is the vendor's (tl/prelude.h).
__device__ __forceinline__ double exp2_ftz(double x) { return ::exp2(x); }
TL_NARROW_FLOAT_UNARY(exp2_ftz, exp2_ftz)
#undef TL_NARROW_FLOAT_UNARY

template <typename T>
__device__ __forceinline__ T pow(T x, T y) {
  return narrow(powf(widen(x), widen(y)), T());
}

// fma of the narrow types without an instruction of their own: the product of two significands
// of at most 11 bits is exact in f32, so only the sum rounds twice (to f32, then to T).
template <typename T>
__device__ __forceinline__ T fma(T x, T y, T z) {
  return narrow(fmaf(widen(x), widen(y), widen(z)), T());
}

}  // namespace tl
