// The device library the Metal code generator's output uses: every tl::
// helper of the emitted code (docs/LOWERING.md, "The Metal calling
// convention"), in the Metal Shading Language 3.1. Embedded in the binary;
// EmitMetalSource prepends it with options.embed_library, since Metal's
// newLibraryWithSource cannot resolve includes. Written by us and never
// compiled here: no Metal compiler exists on these machines.
#pragma once

#include <metal_stdlib>

namespace tl {

using namespace metal;

// Rounding divisions and remainders with the tile IR's semantics.
template <typename T>
inline T floordiv(T a, T b) {
  T q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? T(q - 1) : q;
}
template <typename T>
inline T floormod(T a, T b) {
  T r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? T(r + b) : r;
}
template <typename T>
inline T ceildiv(T a, T b) {
  T q = a / b;
  return (a % b != 0 && ((a < 0) == (b < 0))) ? T(q + 1) : q;
}

// min and max: integers compare; floats return the operand that is not NaN
// (metal::fmin and fmax do, for float and half).
template <typename T>
inline T min(T a, T b) { return b < a ? b : a; }
template <typename T>
inline T max(T a, T b) { return a < b ? b : a; }
inline float min(float a, float b) { return metal::fmin(a, b); }
inline float max(float a, float b) { return metal::fmax(a, b); }
inline half min(half a, half b) { return metal::fmin(a, b); }
inline half max(half a, half b) { return metal::fmax(a, b); }
inline bfloat min(bfloat a, bfloat b) { return bfloat(metal::fmin(float(a), float(b))); }
inline bfloat max(bfloat a, bfloat b) { return bfloat(metal::fmax(float(a), float(b))); }

// An i4 value (held in a char) wrapped to [-8, 7].
inline char wrap_i4(int x) { return char(char(uint(x) << 4) >> 4); }

// Integer abs wraps like the IR (|-128| of an i8 is -128); float abs.
template <typename T>
inline T abs(T a) { return a < 0 ? T(-a) : a; }
inline float abs(float a) { return metal::fabs(a); }
inline half abs(half a) { return metal::fabs(a); }
inline bfloat abs(bfloat a) { return bfloat(metal::fabs(float(a))); }

template <typename T>
inline T infinity() { return T(as_type<float>(0x7f800000u)); }
template <typename T>
inline T quiet_nan() { return T(as_type<float>(0x7fc00000u)); }

// Float to integer: truncate, saturate, NaN gives 0.
template <typename T>
inline T saturate_to_range(float x, float lo, float hi) {
  if (x != x) return T(0);
  if (x <= lo) return T(lo);
  if (x >= hi) return T(hi);
  return T(x);
}
template <typename T>
inline T saturate_cast(float x);
template <>
inline char saturate_cast<char>(float x) { return saturate_to_range<char>(x, -128.0f, 127.0f); }
template <>
inline uchar saturate_cast<uchar>(float x) { return saturate_to_range<uchar>(x, 0.0f, 255.0f); }
template <>
inline short saturate_cast<short>(float x) {
  return saturate_to_range<short>(x, -32768.0f, 32767.0f);
}
template <>
inline int saturate_cast<int>(float x) {
  if (x != x) return 0;
  if (x >= 2147483648.0f) return 2147483647;
  if (x < -2147483648.0f) return -2147483647 - 1;
  return int(x);
}
template <>
inline long saturate_cast<long>(float x) {
  if (x != x) return 0;
  if (x >= 9223372036854775808.0f) return 9223372036854775807L;
  if (x < -9223372036854775808.0f) return -9223372036854775807L - 1;
  return long(x);
}
template <>
inline ushort saturate_cast<ushort>(float x) {
  return saturate_to_range<ushort>(x, 0.0f, 65535.0f);
}
// uint's and ulong's tops are not floats: compare against 2^32 and 2^64, which are.
template <>
inline uint saturate_cast<uint>(float x) {
  if (x != x || x <= 0.0f) return 0;
  if (x >= 4294967296.0f) return 4294967295u;
  return uint(x);
}
template <>
inline ulong saturate_cast<ulong>(float x) {
  if (x != x || x <= 0.0f) return 0;
  if (x >= 18446744073709551616.0f) return 18446744073709551615ul;
  return ulong(x);
}
inline char saturate_to_i4(float x) { return saturate_to_range<char>(x, -8.0f, 7.0f); }

// Math on bfloat (Metal 3.1 has the type, not the functions): computed in
// float, rounded once. erf for every float type: Metal has none.
inline float erf(float x) {
  // Abramowitz and Stegun 7.1.26 refined by one Newton step on erfc: within
  // 1e-7 absolute, not correctly rounded (a documented difference).
  float t = 1.0f / (1.0f + 0.3275911f * metal::fabs(x));
  float y = 1.0f - (((((1.061405429f * t - 1.453152027f) * t) + 1.421413741f) * t -
                     0.284496736f) * t + 0.254829592f) * t * metal::exp(-x * x);
  return metal::copysign(y, x);
}
inline half erf(half x) { return half(erf(float(x))); }
#define TL_BFLOAT_UNARY(name, fn) \
  inline bfloat name(bfloat x) { return bfloat(fn(float(x))); }
TL_BFLOAT_UNARY(exp, metal::exp)
TL_BFLOAT_UNARY(exp2, metal::exp2)
TL_BFLOAT_UNARY(log, metal::log)
TL_BFLOAT_UNARY(log2, metal::log2)
TL_BFLOAT_UNARY(sqrt, metal::sqrt)
TL_BFLOAT_UNARY(rsqrt, metal::rsqrt)
TL_BFLOAT_UNARY(tanh, metal::tanh)
TL_BFLOAT_UNARY(erf, tl::erf)
TL_BFLOAT_UNARY(sin, metal::sin)
TL_BFLOAT_UNARY(cos, metal::cos)
TL_BFLOAT_UNARY(floor, metal::floor)
TL_BFLOAT_UNARY(ceil, metal::ceil)
#undef TL_BFLOAT_UNARY
inline bfloat pow(bfloat x, bfloat y) { return bfloat(metal::pow(float(x), float(y))); }
inline bfloat fma(bfloat x, bfloat y, bfloat z) {
  return bfloat(metal::fma(float(x), float(y), float(z)));
}

// Packed i4: element k in the low nibble of byte k/2 for even k. Stores to
// device or threadgroup memory change their nibble by a compare-and-swap of
// the aligned 32-bit word, since other threads may store the other one.
template <typename P>
inline char load_i4(P base, long index) {
  return wrap_i4(int(uint(base[index >> 1]) >> ((index & 1) * 4)));
}
#define TL_STORE_I4(SPACE)                                                                  \
  inline void store_i4(SPACE uchar* base, long index, char value) {                         \
    SPACE uchar* byte = base + (index >> 1);                                                \
    ulong address = ulong(byte);                                                            \
    SPACE atomic_uint* word = (SPACE atomic_uint*)(byte - (address & 3));                   \
    uint shift = uint((address & 3) * 8 + (index & 1) * 4);                                 \
    uint mask = 0xfu << shift;                                                              \
    uint bits = (uint(value) & 0xfu) << shift;                                              \
    uint expected = atomic_load_explicit(word, memory_order_relaxed);                       \
    while (!atomic_compare_exchange_weak_explicit(word, &expected, (expected & ~mask) | bits, \
                                                  memory_order_relaxed, memory_order_relaxed)) { \
    }                                                                                       \
  }
TL_STORE_I4(device)
TL_STORE_I4(threadgroup)
#undef TL_STORE_I4
inline void store_i4_local(thread uchar* base, long index, char value) {
  thread uchar* byte = base + (index >> 1);
  uint shift = uint((index & 1) * 4);
  *byte = uchar((uint(*byte) & ~(0xfu << shift)) | ((uint(value) & 0xfu) << shift));
}

// Atomic adds: Metal has them for 32-bit int and uint and (device memory, Metal 3)
// float; the target refuses atomic_add on other types (metal_target_info.h).
inline void atomic_add(device float* p, float v) {
  atomic_fetch_add_explicit((device atomic_float*)p, v, memory_order_relaxed);
}
inline void atomic_add(device int* p, int v) {
  atomic_fetch_add_explicit((device atomic_int*)p, v, memory_order_relaxed);
}
inline void atomic_add(threadgroup int* p, int v) {
  atomic_fetch_add_explicit((threadgroup atomic_int*)p, v, memory_order_relaxed);
}
inline void atomic_add(device uint* p, uint v) {
  atomic_fetch_add_explicit((device atomic_uint*)p, v, memory_order_relaxed);
}
inline void atomic_add(threadgroup uint* p, uint v) {
  atomic_fetch_add_explicit((threadgroup atomic_uint*)p, v, memory_order_relaxed);
}

// Atomic maximum and minimum: Metal's for 32-bit int and uint; for float a compare-and-swap loop
// over its bits, keeping the operand that is not NaN as fmax and fmin do.
#define TL_ATOMIC_INT_EXTREMES(SPACE)                                          \
  inline void atomic_max(SPACE int* p, int v) {                                \
    atomic_fetch_max_explicit((SPACE atomic_int*)p, v, memory_order_relaxed);  \
  }                                                                            \
  inline void atomic_min(SPACE int* p, int v) {                                \
    atomic_fetch_min_explicit((SPACE atomic_int*)p, v, memory_order_relaxed);  \
  }                                                                            \
  inline void atomic_max(SPACE uint* p, uint v) {                              \
    atomic_fetch_max_explicit((SPACE atomic_uint*)p, v, memory_order_relaxed); \
  }                                                                            \
  inline void atomic_min(SPACE uint* p, uint v) {                              \
    atomic_fetch_min_explicit((SPACE atomic_uint*)p, v, memory_order_relaxed); \
  }
TL_ATOMIC_INT_EXTREMES(device)
TL_ATOMIC_INT_EXTREMES(threadgroup)
#undef TL_ATOMIC_INT_EXTREMES
#define TL_ATOMIC_FLOAT_EXTREME(NAME, PICK)                                                 \
  inline void NAME(device float* p, float v) {                                              \
    device atomic_uint* word = (device atomic_uint*)p;                                      \
    uint expected = atomic_load_explicit(word, memory_order_relaxed);                       \
    while (!atomic_compare_exchange_weak_explicit(                                          \
        word, &expected, as_type<uint>(PICK(as_type<float>(expected), v)),                  \
        memory_order_relaxed, memory_order_relaxed)) {                                      \
    }                                                                                       \
  }
TL_ATOMIC_FLOAT_EXTREME(atomic_max, fmax)
TL_ATOMIC_FLOAT_EXTREME(atomic_min, fmin)
#undef TL_ATOMIC_FLOAT_EXTREME

// Reductions across the 32 threads of a simdgroup: every thread gets the result.
template <typename T>
inline T simd_reduce_sum(T value) { return simd_sum(value); }
template <typename T>
inline T simd_reduce_max(T value) { return simd_max(value); }
template <typename T>
inline T simd_reduce_min(T value) { return simd_min(value); }

// The value of `value` in thread (index ^ mask) of this simdgroup; every thread of it must
// call it together (the compiler's lane reductions: passes/analysis/lane_reduction.h).
template <typename T>
inline T lane_shuffle_xor(T value, int mask) { return simd_shuffle_xor(value, ushort(mask)); }

// The software pipeline's commit and wait: copies are synchronous here.
inline void cp_async_commit() {}
template <int N>
inline void cp_async_wait() {}

// C (+)= op(A) * op(B) on simdgroup_matrix 8x8 tiles, for an M x N x K tile
// with M, N and K multiples of 8, A and B in threadgroup memory (row-major,
// [K][M] / [N][K] when transposed) and C in registers in the cyclic fragment
// layout (element e on thread e % THREADS, register e / THREADS): the
// simdgroup_matrix layout across threads is not documented, so C goes through
// the threadgroup tile `scratch` (M x N floats) while simdgroups multiply.
// Every thread of the threadgroup calls it.
template <int M, int N, int K, int THREADS, bool TRANS_A, bool TRANS_B, bool CLEAR, typename T>
inline void gemm_simdgroup(threadgroup const T* A, threadgroup const T* B, thread float* C,
                           threadgroup float* scratch, uint thread_index, uint simdgroup,
                           uint simdgroups) {
  constexpr int kRegisters = (M * N + THREADS - 1) / THREADS;
  for (int r = 0; r < kRegisters; ++r) {
    int e = r * THREADS + int(thread_index);
    if (e < M * N) scratch[e] = CLEAR ? 0.0f : C[r];
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (int tile = int(simdgroup); tile < (M / 8) * (N / 8); tile += int(simdgroups)) {
    const int m0 = tile / (N / 8) * 8;
    const int n0 = tile % (N / 8) * 8;
    simdgroup_float8x8 acc;
    simdgroup_load(acc, scratch + m0 * N + n0, N);
    for (int k0 = 0; k0 < K; k0 += 8) {
      simdgroup_matrix<T, 8, 8> a;
      simdgroup_matrix<T, 8, 8> b;
      if (TRANS_A) {
        simdgroup_load(a, A + k0 * M + m0, M, ulong2(0, 0), true);
      } else {
        simdgroup_load(a, A + m0 * K + k0, K);
      }
      if (TRANS_B) {
        simdgroup_load(b, B + n0 * K + k0, K, ulong2(0, 0), true);
      } else {
        simdgroup_load(b, B + k0 * N + n0, N);
      }
      simdgroup_multiply_accumulate(acc, a, b, acc);
    }
    simdgroup_store(acc, scratch + m0 * N + n0, N);
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (int r = 0; r < kRegisters; ++r) {
    int e = r * THREADS + int(thread_index);
    if (e < M * N) C[r] = scratch[e];
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
}

}  // namespace tl
