// simdgroup_matrix gemm for the Metal target: `gemm A_s, B_s -> C_l` with f16
// or f32 operands in threadgroup memory, an f32 fragment accumulator and every
// dimension a multiple of 8 becomes a call of the device library's
// tl::gemm_simdgroup (device/metal.h) over 8x8 simdgroup matrices. The
// per-thread layout of a simdgroup_matrix is not documented, so the
// accumulator keeps the cyclic layout (element e = i * N + j on thread
// e % T, register e / T) and passes through an M x N f32 threadgroup tile
// (`<C>_simd`) during the call; shapes whose tile exceeds kMaxScratchBytes
// take the generic FMA path instead. A 16-bit or f32 fragment A (attention's P)
// cannot be a simdgroup_matrix operand as it stands for the same reason: the
// generic lowering stages it in threadgroup memory, with a remark, and the
// staged gemm runs here.
#ifndef TARGETS_METAL_GEMM_SIMDGROUP_H_
#define TARGETS_METAL_GEMM_SIMDGROUP_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "passes/pass/target_info.h"
#include "tile_ir/buffer.h"
#include "tile_ir/stmt.h"

namespace tile_ir::metal {

// eval metal.gemm_simdgroup(A[start], B[start], C[0, 0], scratch[0, 0], M, N, K, THREADS,
//                           TRANS_A, TRANS_B, CLEAR)
inline constexpr char kGemmSimdgroupIntrinsic[] = "metal.gemm_simdgroup";
// Half of the 32 KiB of threadgroup memory, leaving the rest to the operands.
inline constexpr int64_t kMaxScratchBytes = 16 * 1024;

absl::Status RegisterGemmSimdgroupIntrinsic();

// The cyclic accumulator layout when the gemm can run on simdgroup matrices
// on `threads` threads (a multiple of the simdgroup width, 32), else nullopt.
std::optional<Layout> SimdgroupAccumulatorLayout(const Gemm& gemm, int64_t threads);

// The scratch allocation and the call, when SimdgroupAccumulatorLayout applies
// and the accumulator has that layout; nullopt otherwise.
absl::StatusOr<std::optional<Stmt>> LowerGemmToSimdgroup(
    const passes::GemmLoweringRequest& request);

}  // namespace tile_ir::metal

#endif  // TARGETS_METAL_GEMM_SIMDGROUP_H_
