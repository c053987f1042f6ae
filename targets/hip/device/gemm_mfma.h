// Tile GEMM on CDNA matrix cores (gfx90a, gfx940): C (+)= op(A) * op(B) with A
// and B in LDS (shared memory) and C in registers (gemm_mfma), or A in registers
// (gemm_mfma_rs), through v_mfma_f32_32x32x8f16 / v_mfma_f32_32x32x8bf16_1k
// (fp16 or bf16 inputs, fp32 accumulation) on wavefronts of 64 lanes. The
// compiler's fragment layouts (targets/hip/gemm_mfma.h: MfmaAccumulatorLayout,
// MfmaRegisterALayout) must place every element exactly where this code keeps
// it; both follow the ISA's lane mapping of the 32x32x8 instructions
// (CDNA2/CDNA3 ISA guides, AMD's matrix instruction calculator), for lane l and
// item v of a lane's registers, D = SRC_A * SRC_B + C:
//
//   SRC_A (32x8, 4 items):  SRC_A[l % 32][4 * (l / 32) + v]
//   SRC_B (8x32, 4 items):  SRC_B[4 * (l / 32) + v][l % 32]
//   D (32x32, 16 items):    D[8 * (v / 4) + 4 * (l / 32) + v % 4][l % 32]
//
// Each 32x32 tile of C is issued with the operands swapped, D = op(B)^T op(A)^T
// = C^T: SRC_A is the fragment of op(B) (lane l holds column l % 32 of B, K in
// the items) and SRC_B that of op(A) (lane l holds row l % 32 of A). So a lane
// holds a row of C, columns 8 * (v / 4) + 4 * (l / 32) + v % 4: runs of four
// neighbours, and C[i][j] is in lane i % 32 + 32 * ((j / 4) % 2), item
// 4 * (j / 8) + j % 4. Why swapped: then a 16-bit tile converted in each thread
// from such an accumulator (attention's P = cast(S)) is SRC_B as it stands:
// items 4s..4s+3 of a tile are row l % 32 at columns 8s + 4 (l / 32) + 0..3,
// the A operand of k-step s. (The unswapped D keeps a column per lane.)
//
// Everything but the instructions also compiles as host C++, so that a host
// test runs these very loops over a model of the instruction.
#pragma once

#if defined(__HIPCC__) || defined(__HIP__)
#define TL_MFMA_HOST_DEVICE __host__ __device__ __forceinline__
#define TL_MFMA_DEVICE __device__ __forceinline__
#define TL_MFMA_UNROLL _Pragma("unroll")
#else
#define TL_MFMA_HOST_DEVICE inline
#define TL_MFMA_DEVICE inline
#define TL_MFMA_UNROLL
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
    return thread / kWave / WARPS_N * kWaveM + reg / 16 / kTilesN * kTile + thread % kWave % 32;
  }
  TL_MFMA_HOST_DEVICE static int Col(int thread, int reg) {
    const int lane = thread % kWave;
    const int v = reg % 16;
    return thread / kWave % WARPS_N * kWaveN + reg / 16 % kTilesN * kTile + 8 * (v / 4) +
           4 * (lane / 32) + v % 4;
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

// A thread's accumulators between its registers C (AccumulatorShape's order:
// tile t's sixteen at t * 16 + v) and the instructions' tiles, for both loops
// below; CLEAR starts them at zero instead of C.
template <typename Shape, bool CLEAR, typename Accumulator>
TL_MFMA_DEVICE void LoadAccumulators(const float* C,
                                     Accumulator (&acc)[Shape::kTilesM][Shape::kTilesN]) {
  TL_MFMA_UNROLL
  for (int mi = 0; mi < Shape::kTilesM; ++mi) {
    TL_MFMA_UNROLL
    for (int ni = 0; ni < Shape::kTilesN; ++ni) {
      TL_MFMA_UNROLL
      for (int v = 0; v < 16; ++v) {
        acc[mi][ni][v] = CLEAR ? 0.0f : C[(mi * Shape::kTilesN + ni) * 16 + v];
      }
    }
  }
}
template <typename Shape, typename Accumulator>
TL_MFMA_DEVICE void StoreAccumulators(const Accumulator (&acc)[Shape::kTilesM][Shape::kTilesN],
                                      float* C) {
  TL_MFMA_UNROLL
  for (int mi = 0; mi < Shape::kTilesM; ++mi) {
    TL_MFMA_UNROLL
    for (int ni = 0; ni < Shape::kTilesN; ++ni) {
      TL_MFMA_UNROLL
      for (int v = 0; v < 16; ++v) C[(mi * Shape::kTilesN + ni) * 16 + v] = acc[mi][ni][v];
    }
  }
}

// The instructions of one tile gemm over `Ops`: Ops::Vector holds an operand's four items and
// Ops::Accumulator a tile's sixteen (both indexable), Ops::Step(src_a, src_b, c) returns
// c + src_a * src_b on one 32x32x8 tile. Per k-step, item v of this lane's A operand for the
// wave's tile row mi comes from a_item(mi, k0, v) and of its B operand for tile column ni from
// b_item(ni, k0, v); where A and B live (LDS or registers) is the callers' business.
template <typename Shape, int K, typename Ops, typename AItem, typename BItem>
TL_MFMA_DEVICE void MfmaSteps(typename Ops::Accumulator (&acc)[Shape::kTilesM][Shape::kTilesN],
                              const AItem& a_item, const BItem& b_item) {
  TL_MFMA_UNROLL
  for (int k0 = 0; k0 < K; k0 += kStepK) {
    typename Ops::Vector a[Shape::kTilesM];
    typename Ops::Vector b[Shape::kTilesN];
    TL_MFMA_UNROLL
    for (int mi = 0; mi < Shape::kTilesM; ++mi) {
      TL_MFMA_UNROLL
      for (int v = 0; v < 4; ++v) a[mi][v] = a_item(mi, k0, v);
    }
    TL_MFMA_UNROLL
    for (int ni = 0; ni < Shape::kTilesN; ++ni) {
      TL_MFMA_UNROLL
      for (int v = 0; v < 4; ++v) b[ni][v] = b_item(ni, k0, v);
    }
    TL_MFMA_UNROLL
    for (int mi = 0; mi < Shape::kTilesM; ++mi) {
      TL_MFMA_UNROLL
      for (int ni = 0; ni < Shape::kTilesN; ++ni) {
        acc[mi][ni] = Ops::Step(b[ni], a[mi], acc[mi][ni]);  // swapped: D = C^T (see the top)
      }
    }
  }
}

// gemm_mfma: A and B in LDS as 16-bit patterns. `thread` is the flat thread index in the
// block.
template <int M, int N, int K, int WARPS_M, int WARPS_N, bool TRANS_A, bool TRANS_B, bool CLEAR,
          typename Ops, typename Bits>
TL_MFMA_DEVICE void GemmMfma(const Bits* A, const Bits* B, float* C, int thread) {
  using Shape = AccumulatorShape<M, N, WARPS_M, WARPS_N>;
  static_assert(M % WARPS_M == 0 && N % WARPS_N == 0, "the waves must split the tile evenly");
  static_assert(Shape::kWaveM % kTile == 0 && Shape::kWaveN % kTile == 0,
                "a wave's tile must be a multiple of 32 x 32");
  static_assert(K % kStepK == 0, "K must be a multiple of 8");
  const int lane = thread % kWave;
  const int m_base = thread / kWave / WARPS_N * Shape::kWaveM;
  const int n_base = thread / kWave % WARPS_N * Shape::kWaveN;

  typename Ops::Accumulator acc[Shape::kTilesM][Shape::kTilesN];
  LoadAccumulators<Shape, CLEAR>(C, acc);
  MfmaSteps<Shape, K, Ops>(
      acc,
      [&](int mi, int k0, int v) {
        return A[AOffset<M, K, TRANS_A>(lane, m_base + kTile * mi, k0, v)];
      },
      [&](int ni, int k0, int v) {
        return B[BOffset<N, K, TRANS_B>(lane, n_base + kTile * ni, k0, v)];
      });
  StoreAccumulators<Shape>(acc, C);
}

// gemm_mfma_rs: C (+)= A * op(B) with A's M x K elements in registers, laid out as the
// accumulator of an M x K gemm_mfma on the same WARPS_M x 1 waves (AccumulatorShape<M, K,
// WARPS_M, 1>). Items 4s..4s+3 of its tile (mi, k0 / 32) are, for k-step s = (k0 % 32) / 8,
// the four SRC_B items of A (see the top), so A passes as it stands: no exchange between
// lanes.
template <int M, int N, int K, int WARPS_M, int WARPS_N, bool TRANS_A, bool TRANS_B, bool CLEAR,
          typename Ops, typename Bits>
TL_MFMA_DEVICE void GemmMfmaRs(const Bits* A, const Bits* B, float* C, int thread) {
  using Shape = AccumulatorShape<M, N, WARPS_M, WARPS_N>;
  using AShape = AccumulatorShape<M, K, WARPS_M, 1>;
  static_assert(WARPS_N == 1 && !TRANS_A,
                "A in registers holds whole rows of each wave's tile (WARPS_N == 1), K-major");
  static_assert(M % WARPS_M == 0 && Shape::kWaveM % kTile == 0 && N % kTile == 0,
                "a wave's tile must be a multiple of 32 x 32");
  static_assert(K % kTile == 0, "K must be a multiple of 32 (whole accumulator tiles of A)");
  const int lane = thread % kWave;

  typename Ops::Accumulator acc[Shape::kTilesM][Shape::kTilesN];
  LoadAccumulators<Shape, CLEAR>(C, acc);
  MfmaSteps<Shape, K, Ops>(
      acc,
      [&](int mi, int k0, int v) {
        return A[(mi * AShape::kTilesN + k0 / kTile) * 16 + 4 * (k0 % kTile / kStepK) + v];
      },
      [&](int ni, int k0, int v) { return B[BOffset<N, K, TRANS_B>(lane, kTile * ni, k0, v)]; });
  StoreAccumulators<Shape>(acc, C);
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

// The operand vector of an element type and the instruction that takes it, as
// the Ops of GemmMfma and GemmMfmaRs.
template <typename T>
struct Input;
template <>
struct Input<__half> {
  typedef Half4 Vector;
  typedef Float16 Accumulator;
  typedef _Float16 Bits;
  static __device__ __forceinline__ Float16 Step(Vector a, Vector b, Float16 c) {
    return __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c, 0, 0, 0);
  }
};
template <>
struct Input<hip_bfloat16> {
  typedef Short4 Vector;
  typedef Float16 Accumulator;
  typedef short Bits;
  static __device__ __forceinline__ Float16 Step(Vector a, Vector b, Float16 c) {
    return __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, c, 0, 0, 0);
  }
};

// The flat index that fragment layouts use; hardware forms waves in this order too.
__device__ __forceinline__ int FlatThread() {
  return static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}

}  // namespace mfma

// C (+)= op(A) * op(B) for an M x N x K tile, executed by all WARPS_M * WARPS_N
// wavefronts of the block together, each thread passing its own registers:
// C_regs holds the thread's mfma::AccumulatorShape<M, N, WARPS_M,
// WARPS_N>::kRegisters accumulators, and CLEAR zeroes them first. The caller
// orders the LDS writes of A and B before the call with a barrier.
template <int M, int N, int K, int WARPS_M, int WARPS_N, bool TRANS_A, bool TRANS_B, bool CLEAR,
          typename TA, typename TB>
__device__ __forceinline__ void gemm_mfma(const TA* A_lds, const TB* B_lds, float* C_regs) {
  static_assert(sizeof(TA) == 2 && sizeof(TB) == 2, "A and B must be f16 or bf16");
  using In = mfma::Input<TA>;
  using Bits = typename In::Bits;
  mfma::GemmMfma<M, N, K, WARPS_M, WARPS_N, TRANS_A, TRANS_B, CLEAR, In>(
      reinterpret_cast<const Bits*>(A_lds), reinterpret_cast<const Bits*>(B_lds), C_regs,
      mfma::FlatThread());
}

// C (+)= A * op(B) with A in registers: A_regs holds the thread's
// mfma::AccumulatorShape<M, K, WARPS_M, 1>::kRegisters 16-bit elements of A,
// laid out as the accumulator of an M x K gemm_mfma on the same waves, so a tile
// converted element by element from such an accumulator passes as it stands.
// WARPS_N must be 1, TRANS_A false and K a multiple of 32; B_lds as for gemm_mfma.
template <int M, int N, int K, int WARPS_M, int WARPS_N, bool TRANS_A, bool TRANS_B, bool CLEAR,
          typename TA, typename TB>
__device__ __forceinline__ void gemm_mfma_rs(const TA* A_regs, const TB* B_lds, float* C_regs) {
  static_assert(sizeof(TA) == 2 && sizeof(TB) == 2, "A and B must be f16 or bf16");
  using In = mfma::Input<TA>;
  using Bits = typename In::Bits;
  mfma::GemmMfmaRs<M, N, K, WARPS_M, WARPS_N, TRANS_A, TRANS_B, CLEAR, In>(
      reinterpret_cast<const Bits*>(A_regs), reinterpret_cast<const Bits*>(B_lds), C_regs,
      mfma::FlatThread());
}

}  // namespace tl

#endif  // __HIPCC__ || __HIP__
