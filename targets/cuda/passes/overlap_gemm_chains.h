// The `overlap-gemm-chains` pass (cuda:sm_90a): FlashAttention-3's intra-warpgroup overlap,
// for any consumer loop that chains two wgmma gemms through registers.
//
// A loop of thread-level IR whose body is
//
//   A...                                  // e.g. S's mask, the wait for K's slot
//   eval cuda.gemm_wgmma(..., S[0], ...);             // G1: S = Q K^T, synchronous
//   R1...                                 // arrivals: K's slot released
//   X...                                  // register work on S: softmax, O rescaled, P = S
//   W2...                                 // waits: V's slot
//   eval cuda.gemm_wgmma_rs(P[0], V[...], O[0], ...); // G2: O += P V, A in registers
//   R2...                                 // arrivals: V's slot released
//
// runs G2 of iteration k - 1 while X of iteration k does: the loop is rotated so that
// iteration k issues G1(k) and then G2(k - 1) without waiting, waits for G1(k) alone, runs
// the part of X that leaves P and O alone (X1), waits for G2(k - 1), and only then runs the
// rest (X2: O's rescale, P's conversion):
//
//   if (extent > 0) {
//     A; G1; R1; X                          [k = min]
//     for k in min + 1 +: extent - 1 {
//       A; eval cuda.gemm_wgmma_async(..., S[0], ...);
//       W2 [k - 1]; eval cuda.gemm_wgmma_rs_async(P[0], V[...k - 1...], O[0], ...);
//       eval cuda.wgmma_wait(S[0], 1, <S's registers>);  // G1(k) retired, G2(k - 1) in flight
//       R1; X1;
//       eval cuda.wgmma_wait(O[0], 0, <O's registers>);  // G2(k - 1) retired
//       eval cuda.wgmma_fence_operand(P[0], <P's registers>);
//       R2 [k - 1]; X2
//     }
//     W2; G2; R2                            [k = min + extent - 1]
//   }
//
// The tensor cores then run G2(k - 1) while the warpgroup computes the exponentials of
// iteration k. It holds P of one iteration and S of the next at once (FlashAttention-3 keeps
// the same pair). The loop qualifies when the statements it moves allow it: A and G1 name
// neither P nor O and write nothing G2 reads; X1 names neither; each X2 statement is
// independent of the X1 statements after it; X touches registers only (no shared or global
// memory, no barriers); the body declares nothing at its top level and allocates nothing. A
// loop of another shape, or one whose X1 would be empty, stays as it is (a remark says why
// when it has the two gemms). Loops that warp-roles
// made take turns ({pingpong=on}) have an asynchronous G1 already and are left alone. Runs
// after warp-roles; {overlap=off} turns it off.
#ifndef TARGETS_CUDA_PASSES_OVERLAP_GEMM_CHAINS_H_
#define TARGETS_CUDA_PASSES_OVERLAP_GEMM_CHAINS_H_

#include <string>
#include <vector>

#include "passes/pass/pass.h"
#include "tile_ir/module.h"

namespace tile_ir::cuda {

// The kernel with every qualifying loop overlapped; `remarks` (may be null) gets a line per
// loop it rotated, and one per loop with the two gemms that it left alone, saying why.
Kernel OverlapGemmChains(const Kernel& kernel, std::vector<std::string>* remarks = nullptr);

// The pass: `overlap-gemm-chains`.
passes::PassInfo OverlapGemmChainsPass();

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_PASSES_OVERLAP_GEMM_CHAINS_H_
