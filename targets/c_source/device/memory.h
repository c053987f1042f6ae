// Memory forms the emitted code cannot spell as plain C++, the same on every vendor: packed i4
// elements (element k in the low nibble of byte k/2 when k is even, the high one when odd) and
// atomic adds, by compare-and-swap for 1- and 2-byte types and by the hardware for f32, f64,
// i32, i64, u32 and u64, and atomic maximum and minimum. Each vendor's memory header adds its
// narrow float types.
#pragma once

#include "tl/portable/arith.h"
#include "tl/prelude.h"

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

// The bits of a 1- or 2-byte element and back, for the compare-and-swap loop. to_bits is an
// overload set, which atomic_add's template looks up where it is defined: the vendor's
// overloads for its narrow floats come before it, from tl/prelude.h. from_bits is a template:
// a vendor's memory header specialises it for its narrow floats.
__device__ __forceinline__ unsigned to_bits(signed char v) { return static_cast<unsigned char>(v); }
__device__ __forceinline__ unsigned to_bits(unsigned char v) { return v; }
__device__ __forceinline__ unsigned to_bits(short v) { return static_cast<unsigned short>(v); }
__device__ __forceinline__ unsigned to_bits(unsigned short v) { return v; }
template <typename T>
__device__ __forceinline__ T from_bits(unsigned bits);
template <>
__device__ __forceinline__ signed char from_bits<signed char>(unsigned bits) {
  return static_cast<signed char>(bits);
}
template <>
__device__ __forceinline__ unsigned char from_bits<unsigned char>(unsigned bits) {
  return static_cast<unsigned char>(bits);
}
template <>
__device__ __forceinline__ short from_bits<short>(unsigned bits) {
  return static_cast<short>(bits);
}
template <>
__device__ __forceinline__ unsigned short from_bits<unsigned short>(unsigned bits) {
  return static_cast<unsigned short>(bits);
}

// Sums with the IR's rounding: integers wrap, f16 and bf16 round once (their operator+); a
// vendor's memory header specialises the types whose sum needs more (CUDA's fp8).
template <typename T>
__device__ __forceinline__ T add(T a, T b) {
  return static_cast<T>(a + b);
}

// Types without a hardware atomic add: compare-and-swap on the aligned 32-bit
// word holding the element.
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
__device__ __forceinline__ void atomic_add(unsigned* address, unsigned value) {
  atomicAdd(address, value);
}
__device__ __forceinline__ void atomic_add(unsigned long long* address, unsigned long long value) {
  atomicAdd(address, value);
}

// Atomic maximum and minimum, ordered as tl::max and tl::min (the vendor's arith header, which
// its memory header includes first, adds those of its narrow floats): the hardware's for int
// (32-bit), a compare-and-swap loop for the other types, on the element's own word for
// 4- and 8-byte ones and on the aligned 32-bit word holding it for 1- and 2-byte ones.
struct Larger {
  template <typename T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return tl::max(a, b);
  }
};
struct Smaller {
  template <typename T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return tl::min(a, b);
  }
};

template <typename T, typename Combine>
__device__ __forceinline__ void atomic_combine_narrow(T* address, T value, Combine combine) {
  static_assert(sizeof(T) <= 2, "wider types combine on their own word");
  unsigned long long where = reinterpret_cast<unsigned long long>(address);
  unsigned* word = reinterpret_cast<unsigned*>(where & ~3ull);
  unsigned shift = static_cast<unsigned>((where & 3) * 8);
  unsigned mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
  unsigned old = *word;
  unsigned assumed;
  do {
    assumed = old;
    T combined = combine(from_bits<T>((assumed & mask) >> shift), value);
    old = atomicCAS(word, assumed, (assumed & ~mask) | ((to_bits(combined) << shift) & mask));
  } while (old != assumed);
}

template <typename T, typename Word, typename Combine>
__device__ __forceinline__ void atomic_combine_word(T* address, T value, Combine combine) {
  static_assert(sizeof(T) == sizeof(Word), "the element is its own word");
  Word* word = reinterpret_cast<Word*>(address);
  Word old = *word;
  Word assumed;
  do {
    assumed = old;
    T combined = combine(*reinterpret_cast<const T*>(&assumed), value);
    old = atomicCAS(word, assumed, *reinterpret_cast<const Word*>(&combined));
  } while (old != assumed);
}

template <typename T>
__device__ __forceinline__ void atomic_max(T* address, T value) {
  atomic_combine_narrow(address, value, Larger());
}
template <typename T>
__device__ __forceinline__ void atomic_min(T* address, T value) {
  atomic_combine_narrow(address, value, Smaller());
}
__device__ __forceinline__ void atomic_max(float* address, float value) {
  atomic_combine_word<float, unsigned>(address, value, Larger());
}
__device__ __forceinline__ void atomic_min(float* address, float value) {
  atomic_combine_word<float, unsigned>(address, value, Smaller());
}
__device__ __forceinline__ void atomic_max(double* address, double value) {
  atomic_combine_word<double, unsigned long long>(address, value, Larger());
}
__device__ __forceinline__ void atomic_min(double* address, double value) {
  atomic_combine_word<double, unsigned long long>(address, value, Smaller());
}
__device__ __forceinline__ void atomic_max(int* address, int value) { atomicMax(address, value); }
__device__ __forceinline__ void atomic_min(int* address, int value) { atomicMin(address, value); }
__device__ __forceinline__ void atomic_max(unsigned* address, unsigned value) {
  atomicMax(address, value);
}
__device__ __forceinline__ void atomic_min(unsigned* address, unsigned value) {
  atomicMin(address, value);
}
// HIP has no atomicMax of long long.
__device__ __forceinline__ void atomic_max(long long* address, long long value) {
  atomic_combine_word<long long, unsigned long long>(address, value, Larger());
}
__device__ __forceinline__ void atomic_min(long long* address, long long value) {
  atomic_combine_word<long long, unsigned long long>(address, value, Smaller());
}
__device__ __forceinline__ void atomic_max(unsigned long long* address, unsigned long long value) {
  atomic_combine_word<unsigned long long, unsigned long long>(address, value, Larger());
}
__device__ __forceinline__ void atomic_min(unsigned long long* address, unsigned long long value) {
  atomic_combine_word<unsigned long long, unsigned long long>(address, value, Smaller());
}

}  // namespace tl
