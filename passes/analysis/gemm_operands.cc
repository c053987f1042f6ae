#include "passes/analysis/gemm_operands.h"

#include <cstdlib>
#include <vector>

#include "passes/analysis/fragment_layout.h"
#include "passes/analysis/fragment_threads.h"

namespace tile_ir::passes {
namespace {

// The row stride of `buffer`, whose rows are `cols` long: `cols` when it is dense; when
// strided, its second-to-last stride if the last is 1 and padded rows are allowed and aligned.
std::optional<int64_t> RowStride(const BufferNode& buffer, int64_t cols,
                                 int64_t padded_row_alignment_bytes) {
  if (buffer.strides.empty()) return cols;
  if (padded_row_alignment_bytes <= 0) return std::nullopt;
  size_t rank = buffer.strides.size();
  std::optional<int64_t> last = AsConstInt(buffer.strides[rank - 1]);
  std::optional<int64_t> row = AsConstInt(buffer.strides[rank - 2]);
  if (last != 1 || !row || *row < cols ||
      (*row * buffer.dtype.bits() / 8) % padded_row_alignment_bytes != 0) {
    return std::nullopt;
  }
  return *row;
}

}  // namespace

std::optional<SharedMatrix> AsSharedMatrix(const Region& region,
                                           int64_t padded_row_alignment_bytes) {
  const BufferNode& buffer = *region.buffer;
  if (buffer.scope != MemoryScope::kShared || buffer.layout) return std::nullopt;
  size_t rank = region.ranges.size();
  if (rank < 2) return std::nullopt;
  for (size_t d = 0; d + 2 < rank; ++d) {
    if (AsConstInt(region.ranges[d].extent) != 1) return std::nullopt;
  }
  std::optional<int64_t> rows = AsConstInt(region.ranges[rank - 2].extent);
  std::optional<int64_t> cols = AsConstInt(region.ranges[rank - 1].extent);
  if (!rows || !cols || AsConstInt(region.ranges[rank - 1].min) != 0 ||
      AsConstInt(buffer.shape[rank - 1]) != cols) {
    return std::nullopt;
  }
  std::optional<int64_t> ld = RowStride(buffer, *cols, padded_row_alignment_bytes);
  if (!ld) return std::nullopt;
  return SharedMatrix{*rows, *cols, *ld};
}

std::optional<SharedMatrix> AsWholeFragmentMatrix(const Region& region) {
  const BufferNode& buffer = *region.buffer;
  if (buffer.scope != MemoryScope::kFragment) return std::nullopt;
  size_t rank = region.ranges.size();
  if (rank < 2 || buffer.shape.size() != rank) return std::nullopt;
  for (size_t d = 0; d < rank; ++d) {
    std::optional<int64_t> extent = AsConstInt(region.ranges[d].extent);
    if (!extent || AsConstInt(region.ranges[d].min) != 0 || AsConstInt(buffer.shape[d]) != extent ||
        (d + 2 < rank && *extent != 1)) {
      return std::nullopt;
    }
  }
  int64_t rows = *AsConstInt(region.ranges[rank - 2].extent);
  int64_t cols = *AsConstInt(region.ranges[rank - 1].extent);
  return SharedMatrix{rows, cols, cols};
}

std::optional<GemmOperands> MatchGemmOperands(
    const Gemm& gemm, absl::FunctionRef<std::optional<SharedMatrix>(const Region&)> as_matrix,
    absl::FunctionRef<bool(DataType)> accumulator) {
  const BufferNode& c = *gemm.c.buffer;
  if (c.scope != MemoryScope::kFragment || !accumulator(c.dtype) || c.rank() != 2 ||
      gemm.c.ranges.size() != 2) {
    return std::nullopt;
  }
  std::optional<int64_t> m = AsConstInt(c.shape[0]);
  std::optional<int64_t> n = AsConstInt(c.shape[1]);
  if (!m || !n) return std::nullopt;
  for (int d = 0; d < 2; ++d) {
    if (AsConstInt(gemm.c.ranges[d].min) != 0 ||
        AsConstInt(gemm.c.ranges[d].extent) != AsConstInt(c.shape[d])) {
      return std::nullopt;
    }
  }
  std::optional<SharedMatrix> a = as_matrix(gemm.a);
  std::optional<SharedMatrix> b = as_matrix(gemm.b);
  if (!a || !b) return std::nullopt;
  int64_t a_m = gemm.transpose_a ? a->cols : a->rows;
  int64_t a_k = gemm.transpose_a ? a->rows : a->cols;
  int64_t b_k = gemm.transpose_b ? b->cols : b->rows;
  int64_t b_n = gemm.transpose_b ? b->rows : b->cols;
  if (a_m != *m || b_n != *n || a_k != b_k) return std::nullopt;
  return GemmOperands{*m, *n, a_k, *a, *b};
}

std::optional<GemmOperands> MatchGemmOperands(
    const Gemm& gemm, absl::FunctionRef<std::optional<SharedMatrix>(const Region&)> as_matrix) {
  return MatchGemmOperands(gemm, as_matrix, [](DataType dtype) { return dtype == kF32; });
}

std::optional<GemmOperands> MatchGemmOperands(const Gemm& gemm,
                                              int64_t padded_row_alignment_bytes) {
  return MatchGemmOperands(gemm, [&](const Region& region) {
    return AsSharedMatrix(region, padded_row_alignment_bytes);
  });
}

std::optional<std::pair<int64_t, int64_t>> SplitWarps(
    WarpPolicy policy, int64_t warps, int64_t m, int64_t n,
    absl::FunctionRef<bool(int64_t, int64_t)> fits) {
  switch (policy) {
    case WarpPolicy::kFullRow:
      if (fits(warps, 1)) return std::make_pair(warps, int64_t{1});
      return std::nullopt;
    case WarpPolicy::kFullCol:
      if (fits(1, warps)) return std::make_pair(int64_t{1}, warps);
      return std::nullopt;
    case WarpPolicy::kSquare: break;
  }
  std::optional<std::pair<int64_t, int64_t>> best;
  int64_t best_gap = 0;
  for (int64_t wm = warps; wm >= 1; --wm) {
    if (warps % wm != 0 || !fits(wm, warps / wm)) continue;
    int64_t gap = std::llabs(m / wm - n / (warps / wm));
    if (!best || gap < best_gap) {
      best = std::make_pair(wm, warps / wm);
      best_gap = gap;
    }
  }
  return best;
}

std::optional<std::pair<int64_t, int64_t>> SplitWarps(WarpPolicy policy, int64_t warps, int64_t m,
                                                      int64_t n, int64_t tile_m, int64_t tile_n) {
  return SplitWarps(policy, warps, m, n, [&](int64_t wm, int64_t wn) {
    return m % (wm * tile_m) == 0 && n % (wn * tile_n) == 0;
  });
}

int64_t LaunchThreads(const KernelNode& kernel) {
  int64_t threads = 1;
  for (int64_t extent : kernel.launch.threads) threads *= extent;
  return threads;
}

bool HasFragmentLayout(const BufferNode& fragment, const Layout& expected, int64_t m, int64_t n) {
  if (!fragment.layout || fragment.layout->inputs.size() != 2) return false;
  const Layout& actual = *fragment.layout;
  std::vector<Expr> want = ApplyLayout(expected, {Expr(actual.inputs[0]), Expr(actual.inputs[1])});
  std::vector<VarRange> domain = {{actual.inputs[0].get(), 0, m}, {actual.inputs[1].get(), 0, n}};
  return AgreeOnDomain({actual.outputs[0], want[0]}, domain) &&
         AgreeOnDomain({actual.outputs[1], want[1]}, domain);
}

Expr FirstElement(const Region& region) {
  std::vector<Expr> start;
  for (const Range& range : region.ranges) start.push_back(range.min);
  return BufferLoad::Make(region.buffer, std::move(start));
}

Stmt TileGemmCall(const Gemm& gemm, const std::string& name, int64_t m, int64_t n, int64_t k,
                  int64_t grid_m, int64_t grid_n, std::vector<Expr> extra) {
  std::vector<Expr> args = {FirstElement(gemm.a),
                            FirstElement(gemm.b),
                            BufferLoad::Make(gemm.c.buffer, {Int(0), Int(0)}),
                            Int(m),
                            Int(n),
                            Int(k),
                            Int(grid_m),
                            Int(grid_n),
                            Bool(gemm.transpose_a),
                            Bool(gemm.transpose_b),
                            Bool(gemm.clear_accum)};
  for (Expr& arg : extra) args.push_back(std::move(arg));
  return Evaluate::Make(Call::Make(kVoid, name, std::move(args)), gemm.loc());
}

}  // namespace tile_ir::passes
