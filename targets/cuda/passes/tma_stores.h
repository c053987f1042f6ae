// TMA stores for warp-specialize's consumers (cuda:sm_90a{tma_store=on}, the default): an output
// tile that the consumers copy from registers to global memory goes through a shared staging
// tile, which one consumer thread stores with the TMA. See warp_specialize.md.
#ifndef TARGETS_CUDA_PASSES_TMA_STORES_H_
#define TARGETS_CUDA_PASSES_TMA_STORES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "passes/analysis/software_pipeline_stages.h"
#include "passes/utils/fresh_names.h"
#include "tile_ir/module.h"

namespace tile_ir::cuda {

// The marker condition of the one consumer thread that issues TMA stores (a bool intrinsic
// taking no arguments, which warp-roles replaces with a thread-index test).
inline constexpr char kConsumerLeaderMarker[] = "cuda.consumer_leader";

// Registers the marker and the TMA intrinsics (idempotent).
void RegisterTmaStoreIntrinsics();

struct TmaStoreEpilogue {
  // The staging tiles, to allocate in front of the split.
  std::vector<Stmt> allocations;
  // The consumers' statements after the pipelined loop, the qualifying copies rewritten.
  std::vector<Stmt> epilogue;
  // What the consumers run after their last tile (the final waits); empty when nothing
  // changed.
  std::vector<Stmt> drain;
  // One line per copy to global memory: stored with the TMA, or why not.
  std::vector<std::string> remarks;
};

// The rewrite of `epilogue` (the consumers' statements after the pipelined loop of `kernel`)
// for a kernel whose shared buffers take `shared_bytes` (with their stages) of the
// `shared_limit` the target has. `persistent`: the consumers run the epilogue once per tile of
// a loop, so each copy first waits for the last tile's store to have read its staging tile.
TmaStoreEpilogue StoreTilesWithTma(const KernelNode& kernel, const std::vector<Stmt>& epilogue,
                                   int64_t shared_bytes, int64_t shared_limit, bool persistent,
                                   passes::FreshNames& names);

// The shared memory a kernel body's allocations take, each buffer in `staged` at its staged
// shape, each rounded up to the 1024 bytes a core-matrix tile is aligned to: more than
// plan-shared-memory places for these buffers (it may overlap buffers whose uses do not), but
// not counting those later passes add (a cross-warp reduction's scratch, padded rows). A
// staging tile that fits this estimate and not the final pool makes plan-shared-memory refuse
// the kernel, naming the bytes; {tma_store=off} then compiles it.
int64_t SharedFootprint(const Stmt& body, const passes::BufferMap& staged);

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_PASSES_TMA_STORES_H_
