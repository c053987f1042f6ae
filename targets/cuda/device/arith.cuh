// Integer and float arithmetic with the tile IR's semantics (tile_ir/expr.h): the portable
// part (tl/portable/arith.h) and the NaN-ignoring min/max of f16, bf16 and fp8.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "tl/portable/arith.h"

namespace tl {

template <>
__device__ __forceinline__ __half min(__half a, __half b) { return __hmin(a, b); }
template <>
__device__ __forceinline__ __half max(__half a, __half b) { return __hmax(a, b); }
template <>
__device__ __forceinline__ __nv_bfloat16 min(__nv_bfloat16 a, __nv_bfloat16 b) {
  return __hmin(a, b);
}
template <>
__device__ __forceinline__ __nv_bfloat16 max(__nv_bfloat16 a, __nv_bfloat16 b) {
  return __hmax(a, b);
}
template <>
__device__ __forceinline__ __nv_fp8_e4m3 min(__nv_fp8_e4m3 a, __nv_fp8_e4m3 b) {
  return __nv_fp8_e4m3(fminf(static_cast<float>(a), static_cast<float>(b)));
}
template <>
__device__ __forceinline__ __nv_fp8_e4m3 max(__nv_fp8_e4m3 a, __nv_fp8_e4m3 b) {
  return __nv_fp8_e4m3(fmaxf(static_cast<float>(a), static_cast<float>(b)));
}
template <>
__device__ __forceinline__ __nv_fp8_e5m2 min(__nv_fp8_e5m2 a, __nv_fp8_e5m2 b) {
  return __nv_fp8_e5m2(fminf(static_cast<float>(a), static_cast<float>(b)));
}
template <>
__device__ __forceinline__ __nv_fp8_e5m2 max(__nv_fp8_e5m2 a, __nv_fp8_e5m2 b) {
  return __nv_fp8_e5m2(fmaxf(static_cast<float>(a), static_cast<float>(b)));
}

}  // namespace tl
