// Memory forms the emitted code cannot spell as plain C++: packed i4 elements
// (element k in the low nibble of byte k/2 when k is even, the high one when
// odd) and atomic adds on every type the IR allows.
#pragma once

#include <hip/hip_bfloat16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

#include "tl/arith.h"

namespace tl {

__device__ __forceinline__ signed char load_i4(const unsigned char* base, long long index) {
  unsigned byte = base[index >> 1];
  return wrap_i4(static_cast<int>(byte >> ((index & 1) * 4)));
}

// Stores to shared or global memory: other threads may store the other nibble
// of the byte at the same time, so the byte changes by a compare-and-swap of
// its aligned 32-bit word (global buffers are 16-byte aligned by the calling
// convention, the shared pool by its declaration).
__device__ __forceinline__ void store_i4(unsigned char* base, long long index, signed char value) {
  unsigned char* byte = base + (index >> 1);
  unsigned long long address = reinterpret_cast<unsigned long long>(byte);
  unsigned* word = reinterpret_cast<unsigned*>(address & ~3ull);
  unsigned shift = static_cast<unsigned>((address & 3) * 8 + (index & 1) * 4);
  unsigned mask = 0xfu << shift;
  unsigned bits = (static_cast<unsigned>(value) & 0xfu) << shift;
  unsigned old = *word;
  unsigned assumed;
  do {
    assumed = old;
    old = atomicCAS(word, assumed, (assumed & ~mask) | bits);
  } while (old != assumed);
}

// Stores to a thread's own (local) array: nothing else writes it.
__device__ __forceinline__ void store_i4_local(unsigned char* base, long long index,
                                               signed char value) {
  unsigned char* byte = base + (index >> 1);
  unsigned shift = static_cast<unsigned>((index & 1) * 4);
  *byte = static_cast<unsigned char>((*byte & ~(0xfu << shift)) |
                                     ((static_cast<unsigned>(value) & 0xfu) << shift));
}

// The bits of a 1- or 2-byte element and back, for the compare-and-swap loop.
__device__ __forceinline__ unsigned to_bits(signed char v) { return static_cast<unsigned char>(v); }
__device__ __forceinline__ unsigned to_bits(unsigned char v) { return v; }
__device__ __forceinline__ unsigned to_bits(short v) { return static_cast<unsigned short>(v); }
__device__ __forceinline__ unsigned to_bits(__half v) { return __half_as_ushort(v); }
__device__ __forceinline__ unsigned to_bits(hip_bfloat16 v) { return v.data; }
template <typename T>
__device__ __forceinline__ T from_bits(unsigned bits) {
  return static_cast<T>(bits);
}
template <>
__device__ __forceinline__ __half from_bits<__half>(unsigned bits) {
  return __ushort_as_half(static_cast<unsigned short>(bits));
}
template <>
__device__ __forceinline__ hip_bfloat16 from_bits<hip_bfloat16>(unsigned bits) {
  hip_bfloat16 v;
  v.data = static_cast<unsigned short>(bits);
  return v;
}

// Sums with the IR's rounding: integers wrap, f16 and bf16 round once.
template <typename T>
__device__ __forceinline__ T add(T a, T b) {
  return static_cast<T>(a + b);
}

// Types without a hardware atomic add (1- and 2-byte ones): compare-and-swap
// on the aligned 32-bit word holding the element.
template <typename T>
__device__ __forceinline__ void atomic_add(T* address, T value) {
  static_assert(sizeof(T) <= 2, "wider types have an atomicAdd overload");
  unsigned long long where = reinterpret_cast<unsigned long long>(address);
  unsigned* word = reinterpret_cast<unsigned*>(where & ~3ull);
  unsigned shift = static_cast<unsigned>((where & 3) * 8);
  unsigned mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
  unsigned old = *word;
  unsigned assumed;
  do {
    assumed = old;
    T sum = add(from_bits<T>((assumed & mask) >> shift), value);
    old = atomicCAS(word, assumed, (assumed & ~mask) | ((to_bits(sum) << shift) & mask));
  } while (old != assumed);
}

__device__ __forceinline__ void atomic_add(float* address, float value) {
  atomicAdd(address, value);
}
__device__ __forceinline__ void atomic_add(double* address, double value) {
  atomicAdd(address, value);
}
__device__ __forceinline__ void atomic_add(int* address, int value) { atomicAdd(address, value); }
__device__ __forceinline__ void atomic_add(long long* address, long long value) {
  atomicAdd(reinterpret_cast<unsigned long long*>(address), static_cast<unsigned long long>(value));
}

}  // namespace tl
