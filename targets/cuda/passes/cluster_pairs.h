// Clusters of two blocks along x for warp-specialize (cuda:sm_90a{cluster=2}, warp_specialize.md):
// the pair loads the tile both read once, each block half of its 128-byte atom columns into both
// with a TMA multicast. Which copy qualifies is checked block by block, not proved: for a grid
// and a pipelined loop of constant extents, the first element of the copy's source region is
// evaluated through the kernel's top-level lets (a rasterization's) for blocks x and x + 1 (x
// even) at every iteration, and must agree everywhere.
#ifndef TARGETS_CUDA_PASSES_CLUSTER_PAIRS_H_
#define TARGETS_CUDA_PASSES_CLUSTER_PAIRS_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tile_ir/module.h"

namespace tile_ir::cuda {

struct PairedCopy {
  std::optional<size_t> copy;  // index into the copies: the one the pair shares
  std::string why_not;         // set when there is none
};

// Of `copies` (the global-to-shared copies of `loop`, the pipelined loop among `top`, the
// top-level statements of `kernel`), the one whose tile blocks x and x + 1 (x even) read alike at
// every iteration and whose rows are an even number of 128-byte atoms, the largest if several;
// or why none is (a grid or loop sized at run time, an odd grid along x, no such copy).
PairedCopy CopyForPairs(const KernelNode& kernel, const std::vector<Stmt>& top, const For& loop,
                        const std::vector<Stmt>& copies);

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_PASSES_CLUSTER_PAIRS_H_
