// Tile GEMM on CDNA matrix cores (gfx90a, gfx940): C (+)= op(A) * op(B) with A
// and B in LDS (shared memory) and C in registers, through
// v_mfma_f32_32x32x8f16 / v_mfma_f32_32x32x8bf16_1k (fp16 or bf16 inputs, fp32
// accumulation) on wavefronts of 64 lanes. The compiler's fragment layout for C
// (targets/hip/gemm_mfma.h, MfmaAccumulatorLayout) must place every element
// exactly where this code keeps it; both follow the ISA's lane mapping of the
// 32x32x8 instructions (CDNA2/CDNA3 ISA guides, AMD's matrix instruction
// calculator), for lane l and item v of a lane's registers:
//
//   A (32x8, 4 items):   A[l % 32][4 * (l / 32) + v]
//   B (8x32, 4 items):   B[4 * (l / 32) + v][l % 32]
//   D (32x32, 16 items): D[8 * (v / 4) + 4 * (l / 32) + v % 4][l % 32]
//
// Everything but the instructions also compiles as host C++, so that a host
// test checks the index helpers against the compiler's layout.
#pragma once

#if defined(__HIPCC__) || defined(__HIP__)
#define TL_MFMA_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define TL_MFMA_HOST_DEVICE inline
#endif

namespace tl {
namespace mfma {

constexpr int kWave = 64;
constexpr int kTile = 32;  // M and N of one instruction
constexpr int kStepK = 8;  // its K

// Operand tiles in LDS are dense and row-major: A is [M][K] ([K][M] when
// transposed), B is [K][N] ([N][K] when transposed).

// Where a thread keeps C: the wave grid is WARPS_M x WARPS_N, wave w at
// (w / WARPS_N, w % WARPS_N), owning a (M / WARPS_M) x (N / WARPS_N) tile of
// 32x32 tiles (mi, ni) in row-major order; tile t = mi * kTilesN + ni holds its
// 16 accumulators in registers t * 16 + v.
template <int M, int N, int WARPS_M, int WARPS_N>
struct AccumulatorShape {
  static constexpr int kWaveM = M / WARPS_M;
  static constexpr int kWaveN = N / WARPS_N;
  static constexpr int kTilesM = kWaveM / kTile;
  static constexpr int kTilesN = kWaveN / kTile;
  static constexpr int kRegisters = kTilesM * kTilesN * 16;

  // The C element of register `reg` of the thread with flat index `thread`.
  TL_MFMA_HOST_DEVICE static int Row(int thread, int reg) {
    const int lane = thread % kWave;
    const int v = reg % 16;
    return thread / kWave / WARPS_N * kWaveM + reg / 16 / kTilesN * kTile + 8 * (v / 4) +
           4 * (lane / 32) + v % 4;
  }
  TL_MFMA_HOST_DEVICE static int Col(int thread, int reg) {
    return thread / kWave % WARPS_N * kWaveN + reg / 16 % kTilesN * kTile + thread % kWave % 32;
  }
};

// The element offset of item v of `lane`'s A operand for the instruction at
// rows m0.., cols k0.. of op(A); likewise B at rows k0.., cols n0.. of op(B).
template <int M, int K, bool TRANS_A>
TL_MFMA_HOST_DEVICE int AOffset(int lane, int m0, int k0, int v) {
  const int m = m0 + lane % 32;
  const int k = k0 + 4 * (lane / 32) + v;
  return TRANS_A ? k * M + m : m * K + k;
}
template <int N, int K, bool TRANS_B>
TL_MFMA_HOST_DEVICE int BOffset(int lane, int n0, int k0, int v) {
  const int n = n0 + lane % 32;
  const int k = k0 + 4 * (lane / 32) + v;
  return TRANS_B ? n * K + k : k * N + n;
}

}  // namespace mfma
}  // namespace tl

#if defined(__HIPCC__) || defined(__HIP__)

#include <hip/hip_bfloat16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

namespace tl {
namespace mfma {

typedef _Float16 Half4 __attribute__((ext_vector_type(4)));
typedef short Short4 __attribute__((ext_vector_type(4)));
typedef float Float16 __attribute__((ext_vector_type(16)));

// The operand vector of an element type and the instruction that takes it.
template <typename T>
struct Input;
template <>
struct Input<__half> {
  typedef Half4 Vector;
  typedef _Float16 Bits;
  static __device__ __forceinline__ Float16 Step(Vector a, Vector b, Float16 c) {
    return __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c, 0, 0, 0);
  }
};
template <>
struct Input<hip_bfloat16> {
  typedef Short4 Vector;
  typedef short Bits;
  static __device__ __forceinline__ Float16 Step(Vector a, Vector b, Float16 c) {
    return __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, c, 0, 0, 0);
  }
};

}  // namespace mfma

// C (+)= op(A) * op(B) for an M x N x K tile, executed by all WARPS_M * WARPS_N
// wavefronts of the block together, each thread passing its own registers:
// C_regs holds the thread's mfma::AccumulatorShape<M, N, WARPS_M,
// WARPS_N>::kRegisters accumulators, and CLEAR zeroes them first. The caller
// orders the LDS writes of A and B before the call with a barrier.
template <int M, int N, int K, int WARPS_M, int WARPS_N, bool TRANS_A, bool TRANS_B, bool CLEAR,
          typename TA, typename TB>
__device__ __forceinline__ void gemm_mfma(const TA* A_lds, const TB* B_lds, float* C_regs) {
  using Shape = mfma::AccumulatorShape<M, N, WARPS_M, WARPS_N>;
  using In = mfma::Input<TA>;
  using Bits = typename In::Bits;
  static_assert(sizeof(TA) == 2 && sizeof(TB) == 2, "A and B must be f16 or bf16");
  static_assert(M % WARPS_M == 0 && N % WARPS_N == 0, "the waves must split the tile evenly");
  static_assert(Shape::kWaveM % mfma::kTile == 0 && Shape::kWaveN % mfma::kTile == 0,
                "a wave's tile must be a multiple of 32 x 32");
  static_assert(K % mfma::kStepK == 0, "K must be a multiple of 8");
  // The flat index that fragment layouts use; hardware forms waves in this order too.
  const int thread =
      static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  const int lane = thread % mfma::kWave;
  const int m_base = thread / mfma::kWave / WARPS_N * Shape::kWaveM;
  const int n_base = thread / mfma::kWave % WARPS_N * Shape::kWaveN;
  const Bits* A = reinterpret_cast<const Bits*>(A_lds);
  const Bits* B = reinterpret_cast<const Bits*>(B_lds);

  mfma::Float16 acc[Shape::kTilesM][Shape::kTilesN];
#pragma unroll
  for (int mi = 0; mi < Shape::kTilesM; ++mi) {
#pragma unroll
    for (int ni = 0; ni < Shape::kTilesN; ++ni) {
#pragma unroll
      for (int v = 0; v < 16; ++v) {
        acc[mi][ni][v] = CLEAR ? 0.0f : C_regs[(mi * Shape::kTilesN + ni) * 16 + v];
      }
    }
  }
#pragma unroll
  for (int k0 = 0; k0 < K; k0 += mfma::kStepK) {
    typename In::Vector a[Shape::kTilesM];
    typename In::Vector b[Shape::kTilesN];
#pragma unroll
    for (int mi = 0; mi < Shape::kTilesM; ++mi) {
#pragma unroll
      for (int v = 0; v < 4; ++v) {
        a[mi][v] = A[mfma::AOffset<M, K, TRANS_A>(lane, m_base + mfma::kTile * mi, k0, v)];
      }
    }
#pragma unroll
    for (int ni = 0; ni < Shape::kTilesN; ++ni) {
#pragma unroll
      for (int v = 0; v < 4; ++v) {
        b[ni][v] = B[mfma::BOffset<N, K, TRANS_B>(lane, n_base + mfma::kTile * ni, k0, v)];
      }
    }
#pragma unroll
    for (int mi = 0; mi < Shape::kTilesM; ++mi) {
#pragma unroll
      for (int ni = 0; ni < Shape::kTilesN; ++ni) {
        acc[mi][ni] = In::Step(a[mi], b[ni], acc[mi][ni]);
      }
    }
  }
#pragma unroll
  for (int mi = 0; mi < Shape::kTilesM; ++mi) {
#pragma unroll
    for (int ni = 0; ni < Shape::kTilesN; ++ni) {
#pragma unroll
      for (int v = 0; v < 16; ++v) C_regs[(mi * Shape::kTilesN + ni) * 16 + v] = acc[mi][ni][v];
    }
  }
}

}  // namespace tl

#endif  // __HIPCC__ || __HIP__
