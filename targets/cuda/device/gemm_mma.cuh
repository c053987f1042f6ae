// Tile GEMM on tensor cores (sm_80 and newer): C (+)= op(A) * op(B) with A and B in shared
// memory (gemm_ss) or A in registers (gemm_rs) and C in registers, through ldmatrix and
// mma.sync.aligned.m16n8k16 with fp16 or bf16 inputs and fp32 accumulation. The compiler's
// fragment layouts (targets/cuda/gemm_mma.h: MmaAccumulatorLayout for C, MmaRegisterALayout
// for a register A) must place every element exactly where this code keeps it; both follow
// the PTX ISA's m16n8k16 fragment tables:
//
//   A (16x16, 4 regs of 2 halves): reg q holds row g + 8 * (q % 2), cols 8 * (q / 2) + 2t + e
//   B (16x8, 2 regs):              reg q holds rows 8 * q + 2t + e, col g
//   C (16x8, 4 floats):            c[q] is row g + 8 * (q / 2), col 2t + q % 2
//
// with g = lane / 4, t = lane % 4 and e the half (0 = low) of a register. Each 8x8 piece of A
// and B is one ldmatrix matrix: a non-transposing load where the piece's rows of 8
// consecutive elements are its fragment rows (A row-major, B stored as [N][K]), .trans where
// they are its columns (A stored as [K][M], B row-major).
//
// Everything but the instructions also compiles as host C++, so that a host test runs this
// very loop over a model of ldmatrix and mma written from the PTX ISA.
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define TL_MMA_HOST_DEVICE __host__ __device__ __forceinline__
#define TL_MMA_DEVICE __device__ __forceinline__
// Unrolled loops keep register arrays indexed by constants, so they stay in registers.
#define TL_MMA_UNROLL _Pragma("unroll")
#else
#define TL_MMA_HOST_DEVICE inline
#define TL_MMA_DEVICE inline
#define TL_MMA_UNROLL
#endif

namespace tl {
namespace mma {

// Operand tiles in shared memory are row-major: A is [M][K] ([K][M] when transposed), B is
// [K][N] ([N][K] when transposed), rows LDA (LDB) elements apart: the row length for dense
// tiles, more for tiles whose rows are padded so that the 8 rows of an ldmatrix hit
// different banks (pad-shared-rows). Every row starts 16-byte aligned.

// The element offset of the row that `lane` addresses in the ldmatrix.x4 loading the A
// fragment at rows m0.., cols k0.. of op(A) (matrix q = lane / 8 is fragment register q).
template <int LDA, bool TRANS_A>
TL_MMA_HOST_DEVICE int ARowOffset(int lane, int m0, int k0) {
  const int q = lane / 8;
  const int r = lane % 8;
  const int m = m0 + 8 * (q % 2);
  const int k = k0 + 8 * (q / 2);
  // Not transposed: the 8 rows of A at m.., each from column k. Transposed: the 8 rows of
  // the stored [K][M] tile at k.., each from column m; ldmatrix.trans turns them around.
  return TRANS_A ? (k + r) * LDA + m : (m + r) * LDA + k;
}

// The same for B at rows k0.., cols n0.. of op(B). With `pair`, an ldmatrix.x4 loads two n8
// fragments (registers 0, 1 of columns n0.., then 0, 1 of n0 + 8..); without, an .x2 loads
// one (lanes 16..31 then address the first fragment again, which ldmatrix ignores).
template <int LDB, bool TRANS_B>
TL_MMA_HOST_DEVICE int BRowOffset(int lane, int n0, int k0, bool pair) {
  const int q = lane / 8;
  const int r = lane % 8;
  const int n = n0 + (pair ? 8 * (q / 2) : 0);
  const int k = k0 + 8 * (q % 2);
  // Transposed: B's stored rows are its columns, the fragment's rows. Not transposed: the 8
  // rows of B at k.., each from column n, for ldmatrix.trans.
  return TRANS_B ? (n + r) * LDB + k : (k + r) * LDB + n;
}

// Where a thread keeps C: the warp grid is WARPS_M x WARPS_N, warp w at (w / WARPS_N,
// w % WARPS_N), owning a (M / WARPS_M) x (N / WARPS_N) tile of m16n8 tiles (mi, ni); tile
// (mi, ni) holds its accumulators c[0..3] in registers (mi * kTilesN + ni) * 4 + q.
template <int M, int N, int WARPS_M, int WARPS_N>
struct AccumulatorShape {
  static constexpr int kWarpM = M / WARPS_M;
  static constexpr int kWarpN = N / WARPS_N;
  static constexpr int kTilesM = kWarpM / 16;
  static constexpr int kTilesN = kWarpN / 8;
  static constexpr int kRegisters = kTilesM * kTilesN * 4;

  TL_MMA_HOST_DEVICE static int Register(int mi, int ni, int q) {
    return (mi * kTilesN + ni) * 4 + q;
  }
  // The C element of register `reg` of the thread with flat index `thread`.
  TL_MMA_HOST_DEVICE static int Row(int thread, int reg) {
    return thread / 32 / WARPS_N * kWarpM + reg / 4 / kTilesN * 16 + thread % 32 / 4 +
           8 * (reg % 4 / 2);
  }
  TL_MMA_HOST_DEVICE static int Col(int thread, int reg) {
    return thread / 32 % WARPS_N * kWarpN + reg / 4 % kTilesN * 8 + 2 * (thread % 4) + reg % 2;
  }
};

// Loads the B fragments of N_TILES n8 tiles at columns n_base.., rows k0.. of op(B).
// Non-transposed B is loaded with .trans, and the other way round (see the top).
template <int N_TILES, bool TRANS_B, int LDB, typename Ops, typename TB>
TL_MMA_DEVICE void LoadB(unsigned (&b)[N_TILES][2], const TB* B, int lane, int n_base, int k0) {
  TL_MMA_UNROLL
  for (int ni = 0; ni < N_TILES; ni += 2) {
    const int n0 = n_base + 8 * ni;
    if (ni + 1 < N_TILES) {
      unsigned r[4];
      Ops::template LdMatrixX4<!TRANS_B>(r, B + BRowOffset<LDB, TRANS_B>(lane, n0, k0, true));
      b[ni][0] = r[0];
      b[ni][1] = r[1];
      b[ni + 1][0] = r[2];
      b[ni + 1][1] = r[3];
    } else {
      Ops::template LdMatrixX2<!TRANS_B>(b[ni], B + BRowOffset<LDB, TRANS_B>(lane, n0, k0, false));
    }
  }
}

// gemm_ss's loop over the instructions of `Ops`: LdMatrixX4<TRANS>(r, row) and
// LdMatrixX2<TRANS>(r, row) load from the row this lane addresses, Mma<BF16>(c, a, b) is one
// m16n8k16 step. `thread` is the flat thread index in the block.
template <int M, int N, int K, int WARPS_M, int WARPS_N, bool TRANS_A, bool TRANS_B, bool CLEAR,
          int LDA, int LDB, bool BF16, typename Ops, typename TA, typename TB>
TL_MMA_DEVICE void GemmSs(const TA* A, const TB* B, float* C, int thread) {
  using Shape = AccumulatorShape<M, N, WARPS_M, WARPS_N>;
  static_assert(M % WARPS_M == 0 && N % WARPS_N == 0, "the warps must split the tile evenly");
  static_assert(Shape::kWarpM % 16 == 0 && Shape::kWarpN % 8 == 0,
                "a warp's tile must be a multiple of 16 x 8");
  static_assert(K % 16 == 0, "K must be a multiple of 16");
  static_assert(LDA >= (TRANS_A ? M : K) && LDB >= (TRANS_B ? K : N),
                "rows must be at least as long as the tile");
  const int lane = thread % 32;
  const int m_base = thread / 32 / WARPS_N * Shape::kWarpM;
  const int n_base = thread / 32 % WARPS_N * Shape::kWarpN;

  if constexpr (CLEAR) {
    TL_MMA_UNROLL
    for (int r = 0; r < Shape::kRegisters; ++r) C[r] = 0.0f;
  }
  TL_MMA_UNROLL
  for (int k0 = 0; k0 < K; k0 += 16) {
    unsigned a[Shape::kTilesM][4];
    TL_MMA_UNROLL
    for (int mi = 0; mi < Shape::kTilesM; ++mi) {
      Ops::template LdMatrixX4<TRANS_A>(a[mi],
                                        A + ARowOffset<LDA, TRANS_A>(lane, m_base + 16 * mi, k0));
    }
    unsigned b[Shape::kTilesN][2];
    LoadB<Shape::kTilesN, TRANS_B, LDB, Ops>(b, B, lane, n_base, k0);
    TL_MMA_UNROLL
    for (int mi = 0; mi < Shape::kTilesM; ++mi) {
      TL_MMA_UNROLL
      for (int ni = 0; ni < Shape::kTilesN; ++ni) {
        Ops::template Mma<BF16>(C + Shape::Register(mi, ni, 0), a[mi], b[ni]);
      }
    }
  }
}

// gemm_rs's loop: C (+)= A * op(B) with A in registers. A's M x K elements are laid out as
// the accumulator of an M x K gemm_ss on the same WARPS_M x 1 warps (AccumulatorShape<M, K,
// WARPS_M, 1>), and the accumulators of two adjacent n8 tiles are, element for element, the A
// fragment of one k16 step: c0..c3 of tile 2s are a0..a3 (rows g, g + 8 at columns 2t, 2t + 1
// of the step), c0..c3 of tile 2s + 1 are a4..a7 (columns 8 + 2t, 9 + 2t). So the fragment of
// step k0 / 16 of m16 tile mi is the eight elements from register Register(mi, k0 / 8, 0) on,
// packed in pairs (Ops::Pack(low, high)) into the instruction's four registers. This is how
// an f32 accumulator converted to 16 bits in each thread feeds the next gemm (attention's
// P = cast(S) before P * V) with no trip through shared memory.
template <int M, int N, int K, int WARPS_M, int WARPS_N, bool TRANS_A, bool TRANS_B, bool CLEAR,
          int LDB, bool BF16, typename Ops, typename TA, typename TB>
TL_MMA_DEVICE void GemmRs(const TA* A, const TB* B, float* C, int thread) {
  using Shape = AccumulatorShape<M, N, WARPS_M, WARPS_N>;
  using AShape = AccumulatorShape<M, K, WARPS_M, 1>;
  static_assert(WARPS_N == 1 && !TRANS_A,
                "A in registers holds whole rows of each warp's tile (WARPS_N == 1), K-major");
  static_assert(M % WARPS_M == 0 && Shape::kWarpM % 16 == 0 && N % 8 == 0,
                "a warp's tile must be a multiple of 16 x 8");
  static_assert(K % 16 == 0, "K must be a multiple of 16");
  static_assert(LDB >= (TRANS_B ? K : N), "rows must be at least as long as the tile");
  const int lane = thread % 32;

  if constexpr (CLEAR) {
    TL_MMA_UNROLL
    for (int r = 0; r < Shape::kRegisters; ++r) C[r] = 0.0f;
  }
  TL_MMA_UNROLL
  for (int k0 = 0; k0 < K; k0 += 16) {
    unsigned a[Shape::kTilesM][4];
    TL_MMA_UNROLL
    for (int mi = 0; mi < Shape::kTilesM; ++mi) {
      const TA* step = A + AShape::Register(mi, k0 / 8, 0);
      TL_MMA_UNROLL
      for (int q = 0; q < 4; ++q) a[mi][q] = Ops::Pack(step[2 * q], step[2 * q + 1]);
    }
    unsigned b[Shape::kTilesN][2];
    LoadB<Shape::kTilesN, TRANS_B, LDB, Ops>(b, B, lane, 0, k0);
    TL_MMA_UNROLL
    for (int mi = 0; mi < Shape::kTilesM; ++mi) {
      TL_MMA_UNROLL
      for (int ni = 0; ni < Shape::kTilesN; ++ni) {
        Ops::template Mma<BF16>(C + Shape::Register(mi, ni, 0), a[mi], b[ni]);
      }
    }
  }
}

}  // namespace mma
}  // namespace tl

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace tl {
namespace mma {

// The mma.sync input type of an operand element type.
template <typename T>
struct InputKind;
template <>
struct InputKind<__half> {
  static constexpr bool kBf16 = false;
};
template <>
struct InputKind<__nv_bfloat16> {
  static constexpr bool kBf16 = true;
};

// The instructions. The "memory" clobbers keep the loads after the barrier that publishes
// the tiles.
struct DeviceOps {
  template <bool TRANS>
  static __device__ __forceinline__ void LdMatrixX4(unsigned (&r)[4], const void* row) {
    const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(row));
    if constexpr (TRANS) {
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                   : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                   : "r"(address)
                   : "memory");
    } else {
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                   : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                   : "r"(address)
                   : "memory");
    }
  }

  template <bool TRANS>
  static __device__ __forceinline__ void LdMatrixX2(unsigned (&r)[2], const void* row) {
    const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(row));
    if constexpr (TRANS) {
      asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                   : "=r"(r[0]), "=r"(r[1])
                   : "r"(address)
                   : "memory");
    } else {
      asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                   : "=r"(r[0]), "=r"(r[1])
                   : "r"(address)
                   : "memory");
    }
  }

  // Two 16-bit elements as one 32-bit operand register, `low` in the lower half.
  static __device__ __forceinline__ unsigned Pack(__half low, __half high) {
    return static_cast<unsigned>(__half_as_ushort(low)) |
           (static_cast<unsigned>(__half_as_ushort(high)) << 16);
  }
  static __device__ __forceinline__ unsigned Pack(__nv_bfloat16 low, __nv_bfloat16 high) {
    return static_cast<unsigned>(__bfloat16_as_ushort(low)) |
           (static_cast<unsigned>(__bfloat16_as_ushort(high)) << 16);
  }

  // c += a * b on one m16n8k16 tile.
  template <bool BF16>
  static __device__ __forceinline__ void Mma(float* c, const unsigned (&a)[4],
                                             const unsigned (&b)[2]) {
    if constexpr (BF16) {
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
          "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
          : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    } else {
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
          "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
          : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
  }
};

}  // namespace mma

// C (+)= op(A) * op(B) for an M x N x K tile, executed by all WARPS_M * WARPS_N warps of the
// block together, each thread passing its own registers: C_regs holds the thread's
// mma::AccumulatorShape<M, N, WARPS_M, WARPS_N>::kRegisters accumulators, and CLEAR zeroes
// them first. LDA and LDB are the stored tiles' row strides in elements. The caller orders
// the shared-memory writes of A and B before the call with a barrier.
template <int M, int N, int K, int WARPS_M, int WARPS_N, bool TRANS_A, bool TRANS_B, bool CLEAR,
          int LDA, int LDB, typename TA, typename TB>
__device__ __forceinline__ void gemm_ss(const TA* A_smem, const TB* B_smem, float* C_regs) {
  static_assert(mma::InputKind<TA>::kBf16 == mma::InputKind<TB>::kBf16,
                "A and B must have one element type");
  // The flat index that fragment layouts use; hardware forms warps in this order too.
  const int thread =
      static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  mma::GemmSs<M, N, K, WARPS_M, WARPS_N, TRANS_A, TRANS_B, CLEAR, LDA, LDB,
              mma::InputKind<TA>::kBf16, mma::DeviceOps>(A_smem, B_smem, C_regs, thread);
}

// C (+)= A * op(B) with A in registers: A_regs holds the thread's
// mma::AccumulatorShape<M, K, WARPS_M, 1>::kRegisters 16-bit elements of A, laid out as the
// accumulator of an M x K gemm_ss on the same warps (mma::GemmRs explains why that is the
// operand), so a tile converted element by element from such an accumulator is passed as it
// stands. WARPS_N must be 1 and TRANS_A false; B_smem and LDB are as for gemm_ss.
template <int M, int N, int K, int WARPS_M, int WARPS_N, bool TRANS_A, bool TRANS_B, bool CLEAR,
          int LDB, typename TA, typename TB>
__device__ __forceinline__ void gemm_rs(const TA* A_regs, const TB* B_smem, float* C_regs) {
  static_assert(mma::InputKind<TA>::kBf16 == mma::InputKind<TB>::kBf16,
                "A and B must have one element type");
  const int thread =
      static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  mma::GemmRs<M, N, K, WARPS_M, WARPS_N, TRANS_A, TRANS_B, CLEAR, LDB, mma::InputKind<TA>::kBf16,
              mma::DeviceOps>(A_regs, B_smem, C_regs, thread);
}

}  // namespace tl

#endif  // __CUDACC__ || __CUDACC_RTC__
