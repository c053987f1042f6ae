// Warpgroup tensor-core gemm for sm_90a: `gemm A_s, B_s -> C_l` with fp16 or bf16 operands in
// shared memory and an fp32 fragment accumulator becomes one call of the device library's
// tl::gemm_wgmma (targets/cuda/device/gemm_wgmma.cuh): wgmma.mma_async.m64nNk16 reading both
// operands through shared-memory descriptors. The operand tiles are read in core-matrix order,
// which the core-matrix-tiles pass gives them after lowering (the call registers its operand
// arguments as CoreMatrixReads::operands, targets/cuda/intrinsics.h). The accumulator layout given
// here is the register order of that template, element for element.
#ifndef TARGETS_CUDA_GEMM_WGMMA_H_
#define TARGETS_CUDA_GEMM_WGMMA_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "passes/pass/target_info.h"
#include "tile_ir/buffer.h"
#include "tile_ir/stmt.h"

namespace tile_ir::cuda {

// The intrinsic LowerGemmToWgmma emits:
//   eval cuda.gemm_wgmma(A[first], B[first], C[0, 0], M, N, K, WG_M, WG_N, TRANS_A, TRANS_B,
//                        CLEAR)
// emitted as tl::gemm_wgmma<M, N, K, WG_M, WG_N, TRANS_A, TRANS_B, CLEAR>(&A[first],
// &B[first], &C[0]); A and B (arguments 0 and 1) are core-matrix operands.
inline constexpr char kGemmWgmmaIntrinsic[] = "cuda.gemm_wgmma";

// The same with A a fragment in registers (WgmmaRegisterALayout), emitted as
// tl::gemm_wgmma_rs<...>(&A[0], &B[first], &C[0]) (device/gemm_wgmma_rs.cuh); only B (argument
// 1) is a core-matrix operand.
inline constexpr char kGemmWgmmaRegisterAIntrinsic[] = "cuda.gemm_wgmma_rs";

// cuda.gemm_wgmma's arguments, returning with its own group of instructions still in flight
// (tl::gemm_wgmma_async), and the wait that ends such a chain before the accumulators C (its
// COUNT registers) are read: eval cuda.wgmma_wait(C[0], PENDING, COUNT). warp-roles uses
// them to keep one group in flight across a warp-specialized consumer loop.
inline constexpr char kGemmWgmmaAsyncIntrinsic[] = "cuda.gemm_wgmma_async";
inline constexpr char kWgmmaWaitIntrinsic[] = "cuda.wgmma_wait";

// cuda.gemm_wgmma_rs's arguments, returning with its group in flight and waiting for nothing
// (tl::gemm_wgmma_rs_async), and what follows the wait that retires it: eval
// cuda.wgmma_fence_operand(A[0], COUNT) keeps A's COUNT 16-bit registers as the instructions
// read them until that point. overlap-gemm-chains
// (targets/cuda/passes/overlap_gemm_chains.h) uses them.
inline constexpr char kGemmWgmmaRegisterAAsyncIntrinsic[] = "cuda.gemm_wgmma_rs_async";
inline constexpr char kWgmmaFenceOperandIntrinsic[] = "cuda.wgmma_fence_operand";

// The elements per thread of argument `arg` of a wgmma gemm call (any of the above) when it
// names a thread's local array (once thread binding ran: the accumulators, argument 2, or an
// rs gemm's A, argument 0), or nullopt.
std::optional<int64_t> WgmmaRegisterOperandLength(const Call& gemm, int arg);

// Registers the gemm intrinsics with the CUDA intrinsics; repeated calls do nothing more.
absl::Status RegisterGemmWgmmaIntrinsic();

// The warpgroup widths (N of one wgmma instruction) the device library implements.
bool IsWgmmaWidth(int64_t n);

// A gemm on wgmma: the M x N x K tile split over WG_M x WG_N warpgroups of 128 threads, each
// warpgroup holding an (M / WG_M) x (N / WG_N) tile as (M / WG_M) / 64 instructions
// m64n(N / WG_N)k16 per 16 of K.
struct WgmmaPlan {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  int64_t warpgroups_m = 0;
  int64_t warpgroups_n = 0;
  // Whether core-matrix-tiles lays both operand tiles out 128-byte swizzled (rows of whole
  // 128 bytes: targets/cuda/passes/core_matrix_tiles.h, SwizzledCoreMatrixTile) rather than
  // interleaved; wgmma reads interleaved tiles much slower, slower than mma.sync
  // (bench/results/h200_2026-11-29_run6).
  bool operands_swizzled = false;
  // Whether A is a 16-bit fragment read from registers (wgmma's register A operand) rather
  // than a shared tile; then warpgroups split M only (warpgroups_n == 1), A is not transposed
  // and operands_swizzled speaks of B alone.
  bool a_in_registers = false;
};

// The plan for `gemm` on a block of `threads` threads, or nullopt when wgmma cannot run it.
// It can when: C is a whole 2-D f32 fragment of constant shape M x N; A and B are shared tiles
// of one type, f16 or bf16, with no layout of their own, whose regions are their buffers'
// whole last two dimensions (the ones before of extent 1); K is a multiple of 16; `threads` is
// a multiple of 128 whose warpgroups the gemm's policy splits into WG_M x WG_N with
// (M / WG_M) % 64 == 0 and N / WG_N a width IsWgmmaWidth accepts (square: the warpgroup tile
// closest to square, more warpgroups along M among equals; full_row: all along M; full_col:
// all along N), and, when B is N-major and swizzled, N / WG_N a multiple of its 64-column
// swizzle atoms. A may instead be a whole 2-D fragment of constant shape M x K, not transposed:
// then every warpgroup takes M / WG_M whole rows (WG_N = 1, whatever the policy), since the
// register operand holds whole rows of A.
std::optional<WgmmaPlan> PlanWgmma(const Gemm& gemm, int64_t threads);

// The accumulator layout of a plan. With WM = M / WG_M, WN = N / WG_N, element (i, j) lives on
//   thread   = ((i / WM) * WG_N + j / WN) * 128 + ((i % 64) / 16) * 32 + (i % 8) * 4 + (j % 8) / 2
//   register = ((i % WM) / 64) * (WN / 2) + ((j % WN) / 8) * 4 + ((i % 16) / 8) * 2 + j % 2
// that is, warpgroups in row-major order over their grid, each holding its WM x WN tile as
// m64nWN accumulators one after the other down M, each as the PTX ISA's m64nNk16 D fragment:
// warp w of the warpgroup rows 16w.., d[r] at row groupID (+ 8 when r % 4 >= 2), column
// 8 * (r / 4) + threadID_in_group * 2 (+ 1 for odd r).
Layout WgmmaAccumulatorLayout(const WgmmaPlan& plan);

// The layout a register A operand must have for a plan with a_in_registers: the accumulator
// layout of an M x K tile on the same warpgroups (N replaced by K). The m64nNk16 A fragment is,
// element for element, the m64n16 accumulator fragment, so a 16-bit tile converted in place
// from an f32 accumulator of this shape is already the operand (device/gemm_wgmma_rs.cuh).
Layout WgmmaRegisterALayout(const WgmmaPlan& plan);

// The call of tl::gemm_wgmma (tl::gemm_wgmma_rs for A in registers) that implements
// `request.gemm` when PlanWgmma applies to it, its accumulator has WgmmaAccumulatorLayout and a
// register A has WgmmaRegisterALayout; nullopt otherwise (a register A laid out otherwise is
// staged in shared memory by the generic lowering, which asks again with A there).
absl::StatusOr<std::optional<Stmt>> LowerGemmToWgmma(const passes::GemmLoweringRequest& request);

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_GEMM_WGMMA_H_
