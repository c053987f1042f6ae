// Memory forms of CUDA's narrow float types (packed i4, the other atomic adds and the atomic
// maximum and minimum are tl/portable/memory.h): f16, bf16 and fp8 from their bits, fp8 sums
// rounded once, and the hardware atomic adds of f16 and bf16.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

// The narrow floats' min and max first, for the atomic maximum and minimum's templates.
#include "tl/arith.cuh"
#include "tl/portable/memory.h"

namespace tl {

template <>
__device__ __forceinline__ __half from_bits<__half>(unsigned bits) {
  return __ushort_as_half(static_cast<unsigned short>(bits));
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_bits<__nv_bfloat16>(unsigned bits) {
  return __ushort_as_bfloat16(static_cast<unsigned short>(bits));
}
template <>
__device__ __forceinline__ __nv_fp8_e4m3 from_bits<__nv_fp8_e4m3>(unsigned bits) {
  __nv_fp8_e4m3 v;
  v.__x = static_cast<__nv_fp8_storage_t>(bits);
  return v;
}
template <>
__device__ __forceinline__ __nv_fp8_e5m2 from_bits<__nv_fp8_e5m2>(unsigned bits) {
  __nv_fp8_e5m2 v;
  v.__x = static_cast<__nv_fp8_storage_t>(bits);
  return v;
}

// fp8 sums round (saturating) once.
template <>
__device__ __forceinline__ __nv_fp8_e4m3 add(__nv_fp8_e4m3 a, __nv_fp8_e4m3 b) {
  return __nv_fp8_e4m3(static_cast<float>(a) + static_cast<float>(b));
}
template <>
__device__ __forceinline__ __nv_fp8_e5m2 add(__nv_fp8_e5m2 a, __nv_fp8_e5m2 b) {
  return __nv_fp8_e5m2(static_cast<float>(a) + static_cast<float>(b));
}

__device__ __forceinline__ void atomic_add(__half* address, __half value) {
  atomicAdd(address, value);
}
__device__ __forceinline__ void atomic_add(__nv_bfloat16* address, __nv_bfloat16 value) {
  atomicAdd(address, value);
}

}  // namespace tl
