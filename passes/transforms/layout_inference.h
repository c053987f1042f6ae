// The `layout-inference` pass (for the run's target): gives every fragment buffer a
// layout (thread, register) so that later passes know which thread holds
// which element (docs/LOWERING.md, "Fragment layouts").
#ifndef PASSES_TRANSFORMS_LAYOUT_INFERENCE_H_
#define PASSES_TRANSFORMS_LAYOUT_INFERENCE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "passes/pass/pass.h"
#include "passes/pass/target_info.h"
#include "tile_ir/module.h"

namespace tile_ir::passes {

// Layouts written by the user are kept. With T = target.ThreadsExecutingBlock:
// - T == 1: every other fragment gets (i, j, ...) -> (0, row-major index).
// - T > 1, in this order:
//   1. a gemm accumulator gets target.FragmentLayoutForGemm when the target
//      gives one; two gemms asking different layouts of one buffer are an error;
//   2. layouts spread along constraints between fragments used whole (regions
//      covering the buffer): a reduce's destination element d lives where
//      source element (d, 0) lives (ReducedLayout) and, the other way, a
//      source row lives on the thread of its destination element
//      (ExpandedLayout); cumsum's and copy's two fragments get the same layout, and so do
//      a fragment stored to and each fragment of its shape that the stored value reads at
//      the same indices (`P[i, j] = cast(S[i, j])`: the cast stays inside each thread);
//   3. a reduce or cumsum (in place too) whose fragments still have none gets the
//      thread-per-row layout along its dimension (ThreadPerRowLayout), then 2
//      runs again;
//   4. every fragment left gets the cyclic layout e -> (e % T, e / T).
// So a reduction or scan over fragments is local to each thread unless a
// layout given by the user or the target spreads its rows over threads (then
// lower-tile-ops goes through shared memory).
// Shared buffers: with T > 1, a layout written for a shared buffer (TileLang's
// T.annotate_layout / T.make_swizzled_layout) is dropped, with a line in `remarks` (when
// given) naming the buffer: the GPU targets choose shared layouts themselves (their passes
// pad or swizzle gemm operands; other tiles stay row-major), and a shared layout only places
// elements, so dropping it changes no value. With T == 1 it stays (the code generator
// addresses shared tiles row-major).
// Returns the same pointer when no fragment lacked a layout and no shared layout was dropped.
absl::StatusOr<Kernel> InferFragmentLayouts(const Kernel& kernel, const TargetInfo& target,
                                            std::vector<std::string>* remarks = nullptr);

// Returns whether any kernel changed.
absl::StatusOr<bool> InferFragmentLayouts(Module& module, const TargetInfo& target);

// `layout-inference`, for the run's target.
PassInfo LayoutInferencePass();

}  // namespace tile_ir::passes

#endif  // PASSES_TRANSFORMS_LAYOUT_INFERENCE_H_
