// The CPU target's gemm: register-blocked micro-kernels instead of the generic
// multiply-add loops, which load and store the accumulator tile around every
// multiply-add. Each MR x NR block of C lives in vector registers for the
// whole k loop; a step of k broadcasts MR elements of A, loads NR/L vectors
// of B and issues MR * NR/L vector FMAs.
#ifndef TARGETS_CPU_CPU_GEMM_LOWERING_H_
#define TARGETS_CPU_CPU_GEMM_LOWERING_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "passes/pass/target_info.h"
#include "tile_ir/dtype.h"
#include "tile_ir/stmt.h"

namespace tile_ir::cpu {

// A C tile of `rows` x `vectors` vectors of `lanes` elements, held in registers.
struct GemmBlocking {
  int64_t rows = 0;     // MR
  int64_t vectors = 0;  // NR / lanes
  int lanes = 0;        // L

  friend bool operator==(const GemmBlocking&, const GemmBlocking&) = default;
};

// The blocking for an m x n accumulator tile of `acc` elements: vectors as wide
// as `max_vector_bytes` allows while dividing n, then the most accumulators
// that dividing m and n allows within the register file (16 vectors when the
// widest vector is 64 bytes, as AVX-512 has 32 registers; 12 otherwise, as
// AVX2 has 16), the squarest among equals (fewest loads per FMA). nullopt when
// n has no vector width of at least 2 lanes.
std::optional<GemmBlocking> ChooseGemmBlocking(int64_t m, int64_t n, DataType acc,
                                               int max_vector_bytes);

// The micro-kernel form of `request.gemm` for a block run by one thread:
//   [alloc A_packed, B_packed: local copies of A (M x K) and B (K x N) in the
//    accumulator's type, made only when an operand needs converting or B is
//    transposed, so that the k loop never converts or gathers]
//   for i_block, j_block serial { alloc acc: local [MR, NR];
//     acc = C block (or 0 with clear_accum), unrolled vector copies;
//     for k serial { for r, v unrolled {
//       acc[r, v*L +: L] = fma(broadcast(A[i, k]), B[k, j +: L], acc[r, v*L +: L]) } }
//     C block = acc }
// It handles f32 and f64 accumulators (fragment or local) with constant extents
// and f16, bf16, f32 or f64 operands outside global memory (so that no bound
// predication is needed), with packed copies of at most 64 KiB; nullopt for
// anything else, which the generic loops of lower-tile-ops handle. The FMAs
// round once, where the generic loops round after the multiply too.
absl::StatusOr<std::optional<Stmt>> LowerCpuGemm(const passes::GemmLoweringRequest& request,
                                                 int max_vector_bytes);

}  // namespace tile_ir::cpu

#endif  // TARGETS_CPU_CPU_GEMM_LOWERING_H_
