// Vendor-neutral planning shared by the targets' gemm lowerings: the shared operands seen as
// row-major matrices, the gemm's M x N x K, and the split of warps over the output tile.
// Instruction shapes, warp widths and operand alignments are the caller's parameters.
#ifndef PASSES_ANALYSIS_GEMM_OPERANDS_H_
#define PASSES_ANALYSIS_GEMM_OPERANDS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "tile_ir/buffer.h"
#include "tile_ir/expr.h"
#include "tile_ir/module.h"
#include "tile_ir/stmt.h"

namespace tile_ir::passes {

// A shared operand seen as a row-major matrix: its region's last two dimensions (the ones
// before them of extent 1), spanning the buffer's whole last dimension, so that rows are the
// buffer's rows and the region's start is the matrix's first element. `ld` is the distance
// between rows in elements: the row length when the buffer is dense, its second-to-last
// stride when the rows are padded (pad-shared-rows).
struct SharedMatrix {
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t ld = 0;
};

// `region` as a shared matrix, or nullopt when it is not one (not shared, swizzled, not
// constant). Padded rows are accepted only when `padded_row_alignment_bytes` > 0, the rows
// stay contiguous and each starts a multiple of that many bytes after the previous; with 0
// the buffer must be dense.
std::optional<SharedMatrix> AsSharedMatrix(const Region& region,
                                           int64_t padded_row_alignment_bytes);

// `region` as a matrix when it covers a whole fragment of constant shape whose dimensions
// before the last two have extent 1: rows x cols as the kernel indexes it, `ld` = cols. This
// is how a register operand (attention's P) is seen, and the dense tile it is staged in when
// the target cannot read it from registers.
std::optional<SharedMatrix> AsWholeFragmentMatrix(const Region& region);

// A gemm's output tile M x N, its reduction length K, and its A and B as stored (before the
// gemm's transpositions).
struct GemmOperands {
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  SharedMatrix a;
  SharedMatrix b;
};

// The operands of `gemm` when its C is a whole 2-D fragment of constant shape M x N whose
// dtype `accumulator` accepts and `as_matrix` sees A and B as matrices that are, after the
// transpositions, M x K and K x N; else nullopt.
std::optional<GemmOperands> MatchGemmOperands(
    const Gemm& gemm, absl::FunctionRef<std::optional<SharedMatrix>(const Region&)> as_matrix,
    absl::FunctionRef<bool(DataType)> accumulator);

// MatchGemmOperands for an f32 accumulator, the tensor-core gemms' only one.
std::optional<GemmOperands> MatchGemmOperands(
    const Gemm& gemm, absl::FunctionRef<std::optional<SharedMatrix>(const Region&)> as_matrix);

// MatchGemmOperands with A and B seen by AsSharedMatrix.
std::optional<GemmOperands> MatchGemmOperands(const Gemm& gemm, int64_t padded_row_alignment_bytes);

// WARPS_M x WARPS_N = `warps` per `policy` over an M x N tile, where `fits(wm, wn)` says
// whether a wm x wn grid can hold it; for kSquare the fitting grid whose per-warp tile is
// closest to square, among equals the one with more warps along M (whose A operands are then
// shared by fewer warps). nullopt when no grid fits.
std::optional<std::pair<int64_t, int64_t>> SplitWarps(
    WarpPolicy policy, int64_t warps, int64_t m, int64_t n,
    absl::FunctionRef<bool(int64_t, int64_t)> fits);

// SplitWarps where each warp's tile must be a whole number of `tile_m` x `tile_n`
// instruction tiles.
std::optional<std::pair<int64_t, int64_t>> SplitWarps(WarpPolicy policy, int64_t warps, int64_t m,
                                                      int64_t n, int64_t tile_m, int64_t tile_n);

// The threads of a block of `kernel`: the product of its launch's thread extents.
int64_t LaunchThreads(const KernelNode& kernel);

// Whether the M x N `fragment` has `expected` as its layout, element for element: a stored
// layout went through layout-inference's simplification, so only values can be compared.
bool HasFragmentLayout(const BufferNode& fragment, const Layout& expected, int64_t m, int64_t n);

// The load naming a region's first element, the address a library call takes.
Expr FirstElement(const Region& region);

// `eval NAME(A[first], B[first], C[0, 0], M, N, K, GRID_M, GRID_N, transpose_a, transpose_b,
// clear_accum, extra...)` at the gemm's location: the call of a target library's tile gemm
// run by a GRID_M x GRID_N grid of warps (warpgroups, wavefronts), each operand passed as
// its first element (the accumulator as the thread's own registers).
Stmt TileGemmCall(const Gemm& gemm, const std::string& name, int64_t m, int64_t n, int64_t k,
                  int64_t grid_m, int64_t grid_n, std::vector<Expr> extra = {});

}  // namespace tile_ir::passes

#endif  // PASSES_ANALYSIS_GEMM_OPERANDS_H_
