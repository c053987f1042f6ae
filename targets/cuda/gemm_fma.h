// Register-tiled FMA gemm for the CUDA target: a gemm that neither wgmma nor mma.sync takes
// (an f32 or f64 accumulator, or a shape they decline) and whose operands sit in shared
// memory becomes one call of the device library's tl::gemm_fma
// (targets/cuda/device/gemm_fma.cuh): each thread keeps an MR x NR micro-tile of C in
// registers and, per k, loads MR elements of A and NR of B for MR * NR multiply-adds. The
// layout given here is that template's register order, element for element.
#ifndef TARGETS_CUDA_GEMM_FMA_H_
#define TARGETS_CUDA_GEMM_FMA_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "passes/pass/target_info.h"
#include "tile_ir/buffer.h"
#include "tile_ir/stmt.h"

namespace tile_ir::cuda {

// The intrinsic LowerGemmToFma emits:
//   eval cuda.gemm_fma(A[start], B[start], C[0, 0], M, N, K, TM, TN, TRANS_A, TRANS_B, CLEAR,
//                      LDA, LDB)
// emitted as tl::gemm_fma<M, N, K, TM, TN, TRANS_A, TRANS_B, CLEAR, LDA, LDB>(&A[start],
// &B[start], &C[0]); A and B at their regions' starts, C the thread's own registers.
inline constexpr char kGemmFmaIntrinsic[] = "cuda.gemm_fma";

// Registers kGemmFmaIntrinsic with the CUDA intrinsics; repeated calls do nothing more.
absl::Status RegisterGemmFmaIntrinsic();

// The most 32-bit registers a thread's share of the accumulator may take (MR * NR elements,
// two registers each for f64): more is left to the generic path rather than compiled into a
// kernel that spills.
inline constexpr int64_t kMaxFmaAccumulatorRegisters = 128;

// The shape and thread grid of a gemm on tl::gemm_fma.
struct FmaPlan {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  int64_t threads_m = 0;  // TM: the thread grid is TM x TN, row-major over the flat index
  int64_t threads_n = 0;  // TN
  int64_t lda = 0;        // row strides of the stored A and B tiles, in elements
  int64_t ldb = 0;
};

// The plan of `gemm` on a block of `threads` threads, or nullopt when the FMA gemm does not
// take it (the generic FMA loops then apply). It does when: C is a whole 2-D f32 or f64
// fragment of constant shape M x N; A and B are dense or row-padded, unswizzled shared tiles
// of f32, f64, f16 or bf16 whose regions are 2-D matrices (leading extents of 1 aside)
// spanning their buffer's whole last dimension, M x K and K x N after the transpositions;
// K is a constant; and `threads` splits into a grid TM x TN with M % TM == 0, N % TN == 0 and
// MR * NR accumulators, MR = M / TM and NR = N / TN, within kMaxFmaAccumulatorRegisters. Of
// the grids that fit it picks, in order: TN >= 8 (a warp's lanes along N read consecutive
// columns of B), the micro-tile closest to square (fewest loads per multiply-add), the
// smaller TN (fewer rows of a transposed B per warp: 8 rows padded to an odd number of
// 16-byte chunks hit 8 different bank groups). The gemm's warp policy does not apply.
// A or B may instead be a whole 2-D fragment of constant shape (leading unit dimensions
// aside), planned as the dense shared tile the generic lowering stages it in.
std::optional<FmaPlan> PlanFma(const Gemm& gemm, int64_t threads);

// The (thread, register) layout of the accumulator on `plan`: element (i, j) lives on
//   thread = (i % TM) * TN + j % TN
//   register = (i / TM) * NR + j / TN
// that is, thread (tm, tn) of the grid holds rows tm, tm + TM, ... and columns tn, tn + TN,
// ..., row-major in its registers.
Layout FmaAccumulatorLayout(const FmaPlan& plan);

// FmaAccumulatorLayout of PlanFma(gemm, threads), or nullopt when there is no plan.
std::optional<Layout> FmaAccumulatorLayout(const Gemm& gemm, int64_t threads);

// The call of tl::gemm_fma that implements `request.gemm` when PlanFma accepts it, its
// accumulator has that plan's layout and A and B are in shared memory; nullopt otherwise (a
// layout the user wrote, or an accumulator laid out for another gemm, keeps the generic loops;
// a fragment operand is staged in shared memory by the generic lowering, which asks again).
absl::StatusOr<std::optional<Stmt>> LowerGemmToFma(const passes::GemmLoweringRequest& request);

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_GEMM_FMA_H_
