// The `rasterize-blocks` pass: block rasterization for L2 reuse, the idea of
// TileLang's T.use_swizzle and Triton's grouped program ordering.
#ifndef PASSES_TRANSFORMS_RASTERIZE_BLOCKS_H_
#define PASSES_TRANSFORMS_RASTERIZE_BLOCKS_H_

#include "absl/status/statusor.h"
#include "passes/pass/pass.h"
#include "tile_ir/module.h"

namespace tile_ir::passes {

// For a kernel launched with `swizzle(panel=P, order=...)` on a grid of two or
// more axes, remaps the first two block indices (bx, by) so that consecutive
// linear block ids id = by * gx + bx walk panels:
// - order=row: panels of P grid rows; inside a panel, consecutive ids go down
//   a column of the panel's rows before moving to the next column, so P blocks
//   in a row share one column of tiles of B and neighbouring ones of A;
// - order=column: panels of P grid columns, walked along rows of the panel.
// The last panel holds the remaining rows (columns) when the grid's extent is
// not a multiple of P, so the map stays a bijection on the grid. The new
// indices are lets at the start of the body (raster_id, raster_panel,
// raster_width, raster_offset, then bx_raster and by_raster), every use of the
// old ones is replaced, and the swizzle attribute is dropped. A one-axis grid
// only loses the attribute; a third axis is left alone. Returns the same
// pointer for a kernel without swizzle.
absl::StatusOr<Kernel> RasterizeBlocks(const Kernel& kernel);

// Returns whether any kernel changed.
absl::StatusOr<bool> RasterizeBlocks(Module& module);

PassInfo RasterizeBlocksPass();

}  // namespace tile_ir::passes

#endif  // PASSES_TRANSFORMS_RASTERIZE_BLOCKS_H_
