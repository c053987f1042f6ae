// The `overlap-gemm-chains` pass (cuda:sm_90a): FlashAttention-3's intra-warpgroup overlap, for
// any consumer loop that chains two wgmma gemms through registers.
// Consumes: thread-level IR after warp-roles; a serial loop `A; gemm_wgmma(.., S); R1; X; W2;
//   gemm_wgmma_rs(P, B, O); R2` (R arrivals, W waits, X register work).
// Produces: the loop rotated so that iteration k issues its first gemm with iteration k - 1's
//   second (both asynchronous) and runs X's work that names neither P nor O while that runs.
// Refuses: a loop whose statements do not allow the move stays, with a remark (--remarks) saying
//   why; nothing changes with {overlap=off}; ping-pong loops are left alone.
// Example: testdata/passes/overlap-gemm-chains/chain.tile. Details: overlap_gemm_chains.md.
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
