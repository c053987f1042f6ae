// Fragment layouts as layout-inference builds them and lower-tile-ops checks
// them: index maps from a tile index to (thread, register) (docs/LOWERING.md).
#ifndef PASSES_ANALYSIS_FRAGMENT_LAYOUT_H_
#define PASSES_ANALYSIS_FRAGMENT_LAYOUT_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "tile_ir/buffer.h"
#include "tile_ir/expr.h"

namespace tile_ir::passes {

// The row-major linear index of `indices` in a tile of `shape`:
// ((i0 * s1 + i1) * s2 + i2) ...
Expr RowMajorIndex(const std::vector<Expr>& indices, const std::vector<Expr>& shape);

// One thread holds everything: (i, j, ...) -> (0, row-major index).
Layout SingleThreadLayout(const std::vector<Expr>& shape);

// Elements dealt round-robin to `threads` threads: row-major index e ->
// (e % threads, e / threads) (floormod and floordiv).
Layout CyclicLayout(const std::vector<Expr>& shape, int64_t threads);

// A tile whose dimension `dim` stays inside one thread, for reductions and
// scans along it: with e the row-major index of the other dimensions and x
// the index along `dim` (extent S), (e % threads, (e / threads) * S + x).
Layout ThreadPerRowLayout(const std::vector<Expr>& shape, int dim, int64_t threads);

// A tile reduced along its last dimension `dim` (extent C, R rows in the other dimensions),
// spread so that the block's threads share the work and read memory in wide runs: each row
// lies across L lanes (a power of two, at least 4 where C allows, so a warp's access covers
// runs of 4 * V elements, and up to T / R so that few rows still occupy every thread), each
// lane holding runs of `vector_elements` (V) contiguous elements dealt round-robin over the
// row's lanes: with e the row index and j the column,
//   thread = (e % (T / L)) * L + (j / V) % L,  reg = ((e / (T / L)) * K + j / (V * L)) * V + j % V
// where K = C / (V * L). A row reduction over it is thread-local over V * K registers, then
// a butterfly over the L lanes (across warps where L exceeds the warp). nullopt where the
// shape is not constant, `dim` is not the last dimension, or T is not a power of two.
std::optional<Layout> RowSpreadLayout(const std::vector<Expr>& shape, int dim, int64_t threads,
                                      int64_t vector_elements);

// The layout of a reduction's destination from its source's, reducing over
// `dim`: element d lives where the source element (d, 0) lives, in the same
// register (injective because the source layout is). `keeps_dim`: the
// destination keeps `dim` with extent 1 rather than dropping it.
Layout ReducedLayout(const Layout& src, int dim, bool keeps_dim);

// The layout of a reduction's source from its destination's: (d, x) lives on
// the thread of d, in register reg(d) * extent + x, so each row reduces inside
// one thread.
Layout ExpandedLayout(const Layout& dst, int dim, const Expr& extent, bool dst_keeps_dim);

// `layout` simplified knowing that each input lies in [0, shape[d]).
Layout SimplifyLayout(const Layout& layout, const std::vector<Expr>& shape);

// `layout` with fresh input variables (and replica), for a second buffer of the same shape.
Layout CopyLayout(const Layout& layout);

// The layout's outputs at `indices` (its inputs replaced). A replicated layout's thread output
// still names its replica variable; ReplicaThread gives it for one replica.
std::vector<Expr> ApplyLayout(const Layout& layout, const std::vector<Expr>& indices);

// The thread output at `indices` for the replica `replica` (an expression; ignored when the
// layout does not replicate).
Expr ReplicaThread(const Layout& layout, const std::vector<Expr>& indices, const Expr& replica);

// Whether the two layouts map every index alike (inputs matched by position).
bool SameLayout(const Layout& a, const Layout& b);

// Whether `e` mentions `var`.
bool Mentions(const Expr& e, const Var* var);

}  // namespace tile_ir::passes

#endif  // PASSES_ANALYSIS_FRAGMENT_LAYOUT_H_
