// Tensor-core gemm for the CUDA target: `gemm A_s, B_s -> C_l` with fp16 or bf16 operands in
// shared memory and an fp32 fragment accumulator becomes one call of the device library's
// tl::gemm_ss (targets/cuda/device/gemm_mma.cuh), ldmatrix + mma.sync.m16n8k16; with A a
// 16-bit fragment laid out as an accumulator, tl::gemm_rs reads A from registers. The layouts
// given here are the register order of those templates, element for element.
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

// The same with A a 16-bit fragment in registers laid out as MmaRegisterALayout gives:
//   eval cuda.gemm_rs(A[0, 0], B[start], C[0, 0], M, N, K, WARPS_M, 1, false, TRANS_B, CLEAR,
//                     LDB)
// emitted as tl::gemm_rs<M, N, K, WARPS_M, 1, false, TRANS_B, CLEAR, LDB>(&A[0], &B[start],
// &C[0]) (device/gemm_mma.cuh); A and C pass the thread's own registers.
inline constexpr char kGemmRsIntrinsic[] = "cuda.gemm_rs";

// Registers kGemmSsIntrinsic and kGemmRsIntrinsic with the CUDA intrinsics; repeated calls do
// nothing more.
absl::Status RegisterGemmMmaIntrinsic();

// The (thread, register) layout of the accumulator of `gemm` on a block of `threads` threads
// when the gemm can run on mma.sync m16n8k16, nullopt otherwise (the generic FMA path then
// applies). It can when: C is a whole 2-D f32 fragment of constant shape M x N; A and B are
// dense, unswizzled shared tiles of one type, f16 or bf16, whose regions are 2-D matrices
// (leading extents of 1 aside) spanning their buffer's whole last dimension; K is a constant
// multiple of 16; and `threads` is a multiple of 32 whose warps the gemm's policy splits
// into WARPS_M x WARPS_N with (M / WARPS_M) % 16 == 0 and (N / WARPS_N) % 8 == 0 (square:
// the split whose warp tile is closest to square; full_row: all warps along M; full_col:
// all along N). A may instead be a whole 2-D 16-bit fragment of constant shape (leading unit
// dimensions aside): the warps split by the same policy, and A is read from registers when
// they split M only and A is not transposed (MmaRegisterALayout), else from the dense shared
// tile the generic lowering stages it in.
//
// With WM = M / WARPS_M, WN = N / WARPS_N, NT = WN / 8, element (i, j) lives on
//   thread = ((i / WM) * WARPS_N + j / WN) * 32 + (i % 8) * 4 + (j % 8) / 2
//   register = (((i % WM) / 16) * NT + (j % WN) / 8) * 4 + ((i % 16) / 8) * 2 + j % 2
// that is, warps in row-major order over the warp grid, each holding its WM x WN tile as
// m16n8 accumulator tiles (row-major), each tile as the PTX ISA's c0..c3: row groupID (+ 8
// for c2, c3), column threadID_in_group * 2 (+ 1 for c1, c3).
std::optional<Layout> MmaAccumulatorLayout(const Gemm& gemm, int64_t threads);

// The layout in which tl::gemm_rs reads a fragment A of `gemm` on `threads` threads, or
// nullopt when it cannot (A not a fragment, transposed, or the warps not split along M only):
// the accumulator layout of an M x K gemm on the same WARPS_M x 1 warps. The accumulators of
// two adjacent m16n8 tiles are, element for element, the A fragment of one m16n8k16 step
// (device/gemm_mma.cuh), so a 16-bit tile converted in each thread from the f32 accumulator
// of such a gemm (attention's P = cast(S)) is already the operand.
std::optional<Layout> MmaRegisterALayout(const Gemm& gemm, int64_t threads);

// The call of tl::gemm_ss (tl::gemm_rs for A in registers) that implements `request.gemm` when
// MmaAccumulatorLayout applies to it, its accumulator has that layout and a fragment A has
// MmaRegisterALayout; nullopt otherwise (a fragment A is then staged in shared memory by the
// generic lowering, which asks again with A there).
absl::StatusOr<std::optional<Stmt>> LowerGemmToMma(const passes::GemmLoweringRequest& request);

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_GEMM_MMA_H_
