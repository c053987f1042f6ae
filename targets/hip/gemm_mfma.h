// Matrix-core gemm for the HIP target: `gemm A_s, B_s -> C_l` with fp16 or bf16
// operands in LDS and an fp32 fragment accumulator becomes one call of the
// device library's tl::gemm_mfma (targets/hip/device/gemm_mfma.h), MFMA
// 32x32x8 instructions on wavefronts of 64; with A a 16-bit fragment laid out
// as an accumulator, tl::gemm_mfma_rs reads A from registers. The accumulator layout given here
// is the register order of that template, element for element.
#ifndef TARGETS_HIP_GEMM_MFMA_H_
#define TARGETS_HIP_GEMM_MFMA_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "passes/pass/target_info.h"
#include "tile_ir/buffer.h"
#include "tile_ir/stmt.h"

namespace tile_ir::hip {

// The intrinsic LowerGemmToMfma emits:
//   eval hip.gemm_mfma(A[start], B[start], C[0, 0], M, N, K, WARPS_M, WARPS_N, TRANS_A,
//                      TRANS_B, CLEAR)
// emitted as tl::gemm_mfma<M, N, K, WARPS_M, WARPS_N, TRANS_A, TRANS_B, CLEAR>(&A[start],
// &B[start], &C[0]) (targets/c_source/library_call.h).
inline constexpr char kGemmMfmaIntrinsic[] = "hip.gemm_mfma";

// The same with A a 16-bit fragment in registers laid out as MfmaRegisterALayout gives,
// emitted as tl::gemm_mfma_rs<M, N, K, WARPS_M, 1, false, TRANS_B, CLEAR>(&A[0],
// &B[start], &C[0]).
inline constexpr char kGemmMfmaRegisterAIntrinsic[] = "hip.gemm_mfma_rs";

// Registers kGemmMfmaIntrinsic and kGemmMfmaRegisterAIntrinsic; repeated calls
// do nothing more.
absl::Status RegisterGemmMfmaIntrinsic();

// The (thread, register) layout of the accumulator of `gemm` on a block of
// `threads` threads when the gemm can run on MFMA 32x32x8, nullopt otherwise
// (the generic FMA path then applies). It can when: C is a whole 2-D f32
// fragment of constant shape M x N; A and B are dense, unswizzled shared tiles
// of one type, f16 or bf16, whose regions are 2-D matrices (leading extents of
// 1 aside) spanning their buffer's whole last dimension; K is a constant
// multiple of 8; and `threads` is a multiple of 64 whose wavefronts the gemm's
// policy splits into WARPS_M x WARPS_N with (M / WARPS_M) % 32 == 0 and
// (N / WARPS_N) % 32 == 0 (square: the split whose wave tile is closest to
// square; full_row: all waves along M; full_col: all along N). A may instead
// be a whole 2-D 16-bit fragment (attention's P): it is read from registers
// when the waves split M only, A is not transposed and K is a multiple of 32
// (MfmaRegisterALayout), else staged in LDS by the generic lowering, with a
// remark; the accumulator's layout is the same either way.
//
// With WM = M / WARPS_M, WN = N / WARPS_N, TN = WN / 32, element (i, j) lives on
//   thread   = ((i / WM) * WARPS_N + j / WN) * 64 + i % 32 + 32 * ((j % 32) / 4 % 2)
//   register = (((i % WM) / 32) * TN + (j % WN) / 32) * 16 + 4 * ((j % 32) / 8) + j % 4
// that is, waves in row-major order over the wave grid, each holding its
// WM x WN tile as 32x32 instruction tiles (row-major), each tile as the ISA's
// D operand of the instruction issued with its operands swapped (D = C^T,
// device/gemm_mfma.h says why): lane i % 32 + 32 * ((j / 4) % 2), item
// 4 * (j / 8) + j % 4, so that a lane holds a row in runs of four columns.
std::optional<Layout> MfmaAccumulatorLayout(const Gemm& gemm, int64_t threads);

// The layout in which tl::gemm_mfma_rs reads a fragment A of `gemm` on
// `threads` threads, or nullopt when it cannot: the accumulator layout of an
// M x K gemm on the same WARPS_M x 1 waves. Items 4s..4s+3 of each of its 32x32
// tiles are the A operand of k-step s, so a 16-bit tile converted in each thread
// from such an accumulator (attention's P = cast(S)) is the operand as it
// stands.
std::optional<Layout> MfmaRegisterALayout(const Gemm& gemm, int64_t threads);

// The call of tl::gemm_mfma (tl::gemm_mfma_rs for A in registers) that
// implements `request.gemm` when MfmaAccumulatorLayout applies to it, its
// accumulator has that layout and a fragment A has MfmaRegisterALayout;
// nullopt otherwise (a fragment A is then staged in LDS by the generic
// lowering, which asks again with A there).
absl::StatusOr<std::optional<Stmt>> LowerGemmToMfma(const passes::GemmLoweringRequest& request);

}  // namespace tile_ir::hip

#endif  // TARGETS_HIP_GEMM_MFMA_H_
