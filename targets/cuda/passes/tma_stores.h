// TMA stores for warp-specialize's consumers (cuda:sm_90a{tma_store=on}; off by default until
// timed on an H200): an output tile that the consumers copy from their registers to global
// memory,
//
//   copy C_l -> C[row +: R, col +: W];                  // each thread stores its elements
//
// goes through a shared tile instead, which one consumer thread then stores with the TMA:
//
//   alloc C_stage: shared T[R, W];                      // in front of the split
//   ...
//   if (cuda.consumer_leader()) {                       // persistent kernels only: the last
//     eval cuda.tma_store_wait_read(C_stage[0, 0]);     // tile's store has read C_stage
//   }
//   copy C_l -> C_stage;
//   if (cuda.consumer_leader()) {
//     eval cuda.tma_store_2d(C_stage[0, 0], C[0, 0], row, col, R, W);
//   }
//   ...                                                 // after the consumers' last tile:
//   if (cuda.consumer_leader()) { eval cuda.tma_store_wait_read(C_stage[0, 0]); }
//
// The TMA writes whole 128-byte lines where the threads' stores of an accumulator layout write
// 16 bytes of each of eight rows, and the issuing thread goes on at once: in a persistent
// kernel the store of one tile overlaps the next tile's main loop, which the wait before the
// next tile's copy (and the barrier insert-barriers puts after it) brings back in order. The
// generic passes lower the copy into the shared tile; core-matrix-tiles lays the tile out in
// the TMA's 128-byte swizzle (a store's tile is a core-matrix operand, tensor_maps.h) and
// fences the threads' stores into it before the barrier that precedes the TMA store;
// warp-roles turns the marker into the first consumer thread. Elements of the tile outside
// the tensor are not written, as the threads' guarded stores did not write them.
//
// A copy qualifies when it is a statement of the epilogue's top level, its source is a whole
// fragment of constant shape R x W, the TMA can move its destination (TmaTileWhyNot, tensor_maps.h:
// a tile of that shape of the last two dimensions of a dense tensor parameter of rank 2 to 5, one
// element of each other dimension, with elements the TMA moves and rows of a whole number of 128
// bytes, R a multiple of 8 of at most 256, the row pitch proved a multiple of 16 bytes), no other
// statement of the epilogue names the tensor (nothing would order it with the store's asynchronous
// writes), and the staging tile fits the shared memory the kernel leaves. Others stay as they are,
// with a remark. With several, a persistent kernel waits once before the first staging copy of each
// tile.
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
