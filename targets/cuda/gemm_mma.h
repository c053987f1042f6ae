// Tensor-core gemm for the CUDA target: `gemm A_s, B_s -> C_l` with fp16 or bf16 operands in
// shared memory and an fp32 fragment accumulator becomes one call of the device library's
// tl::gemm_ss (targets/cuda/device/gemm_mma.cuh), ldmatrix + mma.sync.m16n8k16. The
// accumulator layout given here is the register order of that template, element for element.
#ifndef TARGETS_CUDA_GEMM_MMA_H_
#define TARGETS_CUDA_GEMM_MMA_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "passes/pass/target_info.h"
#include "tile_ir/buffer.h"
#include "tile_ir/stmt.h"

namespace tile_ir::cuda {

// The intrinsic LowerGemmToMma emits:
//   eval cuda.gemm_ss(A[start], B[start], C[0, 0], M, N, K, WARPS_M, WARPS_N, TRANS_A,
//                     TRANS_B, CLEAR)
// emitted as tl::gemm_ss<M, N, K, WARPS_M, WARPS_N, TRANS_A, TRANS_B, CLEAR>(&A[start],
// &B[start], &C[0]) (targets/cuda/intrinsics.h). The loads name the first element of each
// operand: A and B at their regions' starts, C the whole fragment, which thread-binding turns
// into the thread's first register.
inline constexpr char kGemmSsIntrinsic[] = "cuda.gemm_ss";

// Registers kGemmSsIntrinsic with the CUDA intrinsics; repeated calls do nothing more.
absl::Status RegisterGemmMmaIntrinsic();

// The (thread, register) layout of the accumulator of `gemm` on a block of `threads` threads
// when the gemm can run on mma.sync m16n8k16, nullopt otherwise (the generic FMA path then
// applies). It can when: C is a whole 2-D f32 fragment of constant shape M x N; A and B are
// dense, unswizzled shared tiles of one type, f16 or bf16, whose regions are 2-D matrices
// (leading extents of 1 aside) spanning their buffer's whole last dimension; K is a constant
// multiple of 16; and `threads` is a multiple of 32 whose warps the gemm's policy splits
// into WARPS_M x WARPS_N with (M / WARPS_M) % 16 == 0 and (N / WARPS_N) % 8 == 0 (square:
// the split whose warp tile is closest to square; full_row: all warps along M; full_col:
// all along N).
//
// With WM = M / WARPS_M, WN = N / WARPS_N, NT = WN / 8, element (i, j) lives on
//   thread = ((i / WM) * WARPS_N + j / WN) * 32 + (i % 8) * 4 + (j % 8) / 2
//   register = (((i % WM) / 16) * NT + (j % WN) / 8) * 4 + ((i % 16) / 8) * 2 + j % 2
// that is, warps in row-major order over the warp grid, each holding its WM x WN tile as
// m16n8 accumulator tiles (row-major), each tile as the PTX ISA's c0..c3: row groupID (+ 8
// for c2, c3), column threadID_in_group * 2 (+ 1 for c1, c3).
std::optional<Layout> MmaAccumulatorLayout(const Gemm& gemm, int64_t threads);

// The call of tl::gemm_ss that implements `request.gemm` when MmaAccumulatorLayout applies to
// it and its accumulator has that layout; nullopt otherwise.
absl::StatusOr<std::optional<Stmt>> LowerGemmToMma(const passes::GemmLoweringRequest& request);

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_GEMM_MMA_H_
