// Register-tiled tile GEMM on the FMA units, for the gemms the tensor cores do not take (f32
// and f64 accumulators, or shapes mma.sync and wgmma decline): C (+)= op(A) * op(B) with A and
// B in shared memory and C in registers. The block's threads form a TM x TN grid; thread
// (tm, tn) owns the MR x NR = (M / TM) x (N / TN) elements (tm + TM * a, tn + TN * b), kept in
// register a * NR + b, and at each k loads MR elements of A and NR of B once for MR * NR
// multiply-adds. The compiler's layout (targets/cuda/gemm_fma.h, FmaAccumulatorLayout) puts
// every element exactly there. Rows and columns are strided over the grid, not blocked, so the
// lanes of a warp (consecutive tn) read consecutive columns of B and few rows of A.
//
// Everything but the element conversions also compiles as host C++, so that a host test runs
// this very loop for every thread of a block (gemm_fma_simulation_test.cc).
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define TL_FMA_DEVICE __device__ __forceinline__
// Unrolled loops keep register arrays indexed by constants, so they stay in registers.
#define TL_FMA_UNROLL _Pragma("unroll")
#define TL_FMA_NO_UNROLL _Pragma("unroll 1")
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#else
#define TL_FMA_DEVICE inline
#define TL_FMA_UNROLL
#define TL_FMA_NO_UNROLL
#endif

namespace tl {
namespace fma_tile {

// An operand element in the accumulator's type.
template <typename TC, typename T>
TL_FMA_DEVICE TC ToAccumulator(T x) {
  return static_cast<TC>(x);
}
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
// Through float: __half and __nv_bfloat16 convert to several types implicitly, so a cast to
// double would be ambiguous. (Declared before GemmFma: its calls find no later overload.)
template <typename TC>
__device__ __forceinline__ TC ToAccumulator(__half x) {
  return static_cast<TC>(__half2float(x));
}
template <typename TC>
__device__ __forceinline__ TC ToAccumulator(__nv_bfloat16 x) {
  return static_cast<TC>(__bfloat162float(x));
}
#endif

// The k steps one pass of the k loop unrolls: the largest of 4, 2, 1 dividing K. Unrolling
// all of K lets the compiler hoist every shared load of the tile above the multiply-adds, and
// two such gemms in a row then spill (nvcc 13: a 64x64x32 f64 tile on 128 threads, called
// twice, took a 4.7 KB stack; with 4 steps per pass, none); 4 steps keep the indices of the
// register arrays constant and the loads of the next steps in flight.
template <int K>
struct KUnroll {
  static constexpr int kValue = K % 4 == 0 ? 4 : (K % 2 == 0 ? 2 : 1);
};

// Operand tiles in shared memory are row-major: A is [M][K] ([K][M] when transposed), B is
// [K][N] ([N][K] when transposed), rows LDA (LDB) elements apart (more than the row length
// where pad-shared-rows padded them). `thread` is the flat thread index in the block; C holds
// the thread's (M / TM) * (N / TN) accumulators.
template <int M, int N, int K, int TM, int TN, bool TRANS_A, bool TRANS_B, bool CLEAR, int LDA,
          int LDB, typename TA, typename TB, typename TC>
TL_FMA_DEVICE void GemmFma(const TA* A, const TB* B, TC* C, int thread) {
  static_assert(M % TM == 0 && N % TN == 0, "the thread grid must split the tile evenly");
  static_assert(LDA >= (TRANS_A ? M : K) && LDB >= (TRANS_B ? K : N),
                "rows must be at least as long as the tile");
  constexpr int MR = M / TM;
  constexpr int NR = N / TN;
  constexpr int KU = KUnroll<K>::kValue;
  const int tm = thread / TN;
  const int tn = thread % TN;
  // Each thread's first row of op(A) and column of op(B); the rest are constant offsets.
  const TA* a_base = A + (TRANS_A ? tm : tm * LDA);
  const TB* b_base = B + (TRANS_B ? tn * LDB : tn);

  if constexpr (CLEAR) {
    TL_FMA_UNROLL
    for (int r = 0; r < MR * NR; ++r) C[r] = TC(0);
  }
  TL_FMA_NO_UNROLL
  for (int k0 = 0; k0 < K; k0 += KU) {
    TL_FMA_UNROLL
    for (int kk = 0; kk < KU; ++kk) {
      const int k = k0 + kk;
      TC a[MR];
      TC b[NR];
      TL_FMA_UNROLL
      for (int i = 0; i < MR; ++i) {
        a[i] = ToAccumulator<TC>(TRANS_A ? a_base[k * LDA + TM * i] : a_base[TM * i * LDA + k]);
      }
      TL_FMA_UNROLL
      for (int j = 0; j < NR; ++j) {
        b[j] = ToAccumulator<TC>(TRANS_B ? b_base[TN * j * LDB + k] : b_base[k * LDB + TN * j]);
      }
      TL_FMA_UNROLL
      for (int i = 0; i < MR; ++i) {
        TL_FMA_UNROLL
        for (int j = 0; j < NR; ++j) C[i * NR + j] += a[i] * b[j];
      }
    }
  }
}

}  // namespace fma_tile
}  // namespace tl

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)

namespace tl {

// C (+)= op(A) * op(B) for an M x N x K tile on the FMA units, executed by the TM * TN threads
// of the block together, each passing its own (M / TM) * (N / TN) accumulators (fma_tile::GemmFma
// gives their order); CLEAR zeroes them first. A and B are f32, f64, f16 or bf16, converted
// to C's type (float or double) before each multiply-add, which nvcc contracts into one
// fma. LDA and LDB are the stored tiles' row strides in elements. No barrier inside: the
// caller orders the shared-memory writes of A and B before the call, as for gemm_ss.
template <int M, int N, int K, int TM, int TN, bool TRANS_A, bool TRANS_B, bool CLEAR, int LDA,
          int LDB, typename TA, typename TB, typename TC>
__device__ __forceinline__ void gemm_fma(const TA* A_smem, const TB* B_smem, TC* C_regs) {
  // The flat index that fragment layouts use.
  const int thread =
      static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  fma_tile::GemmFma<M, N, K, TM, TN, TRANS_A, TRANS_B, CLEAR, LDA, LDB>(A_smem, B_smem, C_regs,
                                                                    thread);
}

}  // namespace tl

#endif  // __CUDACC__ || __CUDACC_RTC__
