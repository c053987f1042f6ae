// Reductions of a fragment along a dimension whose rows lie across several lanes of a warp
// (an mma or wgmma accumulator's rows lie across 4): the layout that replicates the reduced
// vector over exactly those lanes, and the plan by which each thread first combines the
// registers it holds of a row, then a shuffle butterfly over the lanes finishes the row in
// every one of them. Both are derived from the layouts by enumeration (constant shapes), so
// any layout of that shape gets them, on any target with lane shuffles.
#ifndef PASSES_ANALYSIS_LANE_REDUCTION_H_
#define PASSES_ANALYSIS_LANE_REDUCTION_H_

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "tile_ir/buffer.h"
#include "tile_ir/stmt.h"

namespace tile_ir::passes {

// The layout of reduce(src -> dst, dim)'s destination (src of constant `shape`), replicated
// over the lanes that hold each source row: element d on thread(d, 0) + spread(r) for every
// replica r, in register reg(d, 0), where spread places r's bits on the single-bit thread masks
// that, for every row alike, turn thread(d, 0) into the row's other threads (masks of
// `warp_size` and above cross warps). nullopt where a
// row lies on one thread (ReducedLayout serves), where the rows' threads are not thread(d, 0)
// with every combination of one set of masks below `threads` (bits thread(d, 0) has clear),
// or where two copies would share a (thread, register).
std::optional<Layout> LaneReplicatedReducedLayout(const Layout& src,
                                                  const std::vector<int64_t>& shape, int dim,
                                                  bool keeps_dim, int warp_size, int64_t threads);

// acc combined with x by `kind`'s operation (absmax: max, abssum: add; its caller takes the
// magnitudes, MagnitudeIfAbs).
Expr CombineReduced(ReduceKind kind, const Expr& acc, const Expr& x);

// abs(x) for the kinds that combine magnitudes (absmax, abssum); x otherwise.
Expr MagnitudeIfAbs(ReduceKind kind, const Expr& x);

// How every thread reduces: for each destination register it holds, the source registers it
// combines, in the order of the reduced index; then one combine with the value of lane
// (lane ^ mask) for each lane mask, smallest first. Where a row spans warps, masks of the
// warp size and above (`warp_masks`) join the warps' partial results through shared memory:
// the first lane of each row's lane group stores its partial, and after a barrier every
// thread combines the partials of its row's warps in one order (so every copy agrees).
struct LaneReductionPlan {
  std::vector<std::pair<int64_t, std::vector<int64_t>>> registers;
  std::vector<int64_t> lane_masks;
  std::vector<int64_t> warp_masks;
};

// The plan for reduce(src -> dst, dim) over whole fragments of constant shape on `threads`
// threads, when every thread holds the same destination registers combining the same source
// registers (so every lane runs the same straight-line code and the shuffles see every lane),
// and the lanes (lane ^ any combination of the masks) hold exactly the rest of each row in the
// same destination register; nullopt otherwise. dst may keep `dim` with extent 1.
std::optional<LaneReductionPlan> PlanLaneReduction(const BufferNode& src, const BufferNode& dst,
                                                   int dim, int64_t threads, int warp_size);

}  // namespace tile_ir::passes

#endif  // PASSES_ANALYSIS_LANE_REDUCTION_H_
