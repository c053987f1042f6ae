// Float-to-integer conversions with the tile IR's semantics: truncate toward
// zero, saturate to the target's range, NaN gives 0 (PTX cvt.rzi.sat does the
// same for the 32- and 64-bit types; C++'s own cast is undefined out of range).
// saturate_to_range and saturate_to_i4 are tl/portable/convert.h.
#pragma once

#include "tl/portable/convert.h"

namespace tl {

template <typename T>
__device__ __forceinline__ T saturate_cast(float x);
template <typename T>
__device__ __forceinline__ T saturate_cast(double x);

template <>
__device__ __forceinline__ int saturate_cast<int>(float x) { return __float2int_rz(x); }
template <>
__device__ __forceinline__ int saturate_cast<int>(double x) { return __double2int_rz(x); }
template <>
__device__ __forceinline__ long long saturate_cast<long long>(float x) {
  return __float2ll_rz(x);
}
template <>
__device__ __forceinline__ long long saturate_cast<long long>(double x) {
  return __double2ll_rz(x);
}
template <>
__device__ __forceinline__ short saturate_cast<short>(float x) {
  return saturate_to_range<short>(x, -32768, 32767);
}
template <>
__device__ __forceinline__ short saturate_cast<short>(double x) {
  return saturate_to_range<short>(x, -32768, 32767);
}
template <>
__device__ __forceinline__ signed char saturate_cast<signed char>(float x) {
  return saturate_to_range<signed char>(x, -128, 127);
}
template <>
__device__ __forceinline__ signed char saturate_cast<signed char>(double x) {
  return saturate_to_range<signed char>(x, -128, 127);
}
template <>
__device__ __forceinline__ unsigned char saturate_cast<unsigned char>(float x) {
  return saturate_to_range<unsigned char>(x, 0, 255);
}
template <>
__device__ __forceinline__ unsigned char saturate_cast<unsigned char>(double x) {
  return saturate_to_range<unsigned char>(x, 0, 255);
}
template <>
__device__ __forceinline__ unsigned short saturate_cast<unsigned short>(float x) {
  return saturate_to_range<unsigned short>(x, 0, 65535);
}
template <>
__device__ __forceinline__ unsigned short saturate_cast<unsigned short>(double x) {
  return saturate_to_range<unsigned short>(x, 0, 65535);
}
template <>
__device__ __forceinline__ unsigned saturate_cast<unsigned>(float x) { return __float2uint_rz(x); }
template <>
__device__ __forceinline__ unsigned saturate_cast<unsigned>(double x) {
  return __double2uint_rz(x);
}
template <>
__device__ __forceinline__ unsigned long long saturate_cast<unsigned long long>(float x) {
  return __float2ull_rz(x);
}
template <>
__device__ __forceinline__ unsigned long long saturate_cast<unsigned long long>(double x) {
  return __double2ull_rz(x);
}

}  // namespace tl
