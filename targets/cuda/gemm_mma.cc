// When a gemm fits mma.sync m16n8k16, and the accumulator layout and call that say so.
#include "targets/cuda/gemm_mma.h"

#include <cstdlib>
#include <optional>
#include <utility>
#include <vector>

#include "passes/fragment_layout.h"
#include "passes/fragment_threads.h"
#include "targets/cuda/intrinsics.h"

namespace tile_ir::cuda {
namespace {

constexpr int64_t kWarpSize = 32;
constexpr int64_t kMmaM = 16;
constexpr int64_t kMmaN = 8;
constexpr int64_t kMmaK = 16;

// A shared operand seen as a row-major matrix: its region's last two dimensions (the
// ones before them of extent 1), spanning the buffer's whole last dimension, so that rows
// are the buffer's rows and the region's start is the matrix's first element. `ld` is the
// distance between rows in elements: the row length when the buffer is dense, its
// second-to-last stride when the rows are padded (pad-shared-rows).
struct SharedMatrix {
  int64_t rows;
  int64_t cols;
  int64_t ld;
};

// The row stride of `buffer` when its elements are contiguous along each row and every
// row starts 16 bytes after a multiple of 16 bytes from the previous (ldmatrix reads 16
// aligned bytes per row), else nullopt.
std::optional<int64_t> RowStride(const BufferNode& buffer, int64_t cols) {
  if (buffer.strides.empty()) return cols;
  size_t rank = buffer.strides.size();
  std::optional<int64_t> last = AsConstInt(buffer.strides[rank - 1]);
  std::optional<int64_t> row = AsConstInt(buffer.strides[rank - 2]);
  if (last != 1 || !row || *row < cols || (*row * buffer.dtype.bits() / 8) % 16 != 0) {
    return std::nullopt;
  }
  return *row;
}

std::optional<SharedMatrix> AsSharedMatrix(const Region& region) {
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
  std::optional<int64_t> ld = RowStride(buffer, *cols);
  if (!ld) return std::nullopt;
  return SharedMatrix{*rows, *cols, *ld};
}

bool IsMmaInput(DataType dtype) { return dtype == kF16 || dtype == kBF16; }

// The gemm's shape and warp grid on mma.sync m16n8k16.
struct MmaPlan {
  int64_t m;
  int64_t n;
  int64_t k;
  int64_t warps_m;
  int64_t warps_n;
  int64_t lda;  // row strides of the stored A and B tiles, in elements
  int64_t ldb;
};

// WARPS_M x WARPS_N = `warps` per the policy, each warp's tile a whole number of m16n8 tiles.
std::optional<std::pair<int64_t, int64_t>> SplitWarps(WarpPolicy policy, int64_t warps, int64_t m,
                                                      int64_t n) {
  auto fits = [&](int64_t wm, int64_t wn) {
    return m % (wm * kMmaM) == 0 && n % (wn * kMmaN) == 0;
  };
  switch (policy) {
    case WarpPolicy::kFullRow:
      if (fits(warps, 1)) return std::make_pair(warps, int64_t{1});
      return std::nullopt;
    case WarpPolicy::kFullCol:
      if (fits(1, warps)) return std::make_pair(int64_t{1}, warps);
      return std::nullopt;
    case WarpPolicy::kSquare:
      break;
  }
  // The warp tile closest to square; among equals, more warps along M, whose A fragments
  // are shared by fewer warps.
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

std::optional<MmaPlan> PlanMma(const Gemm& gemm, int64_t threads) {
  const BufferNode& c = *gemm.c.buffer;
  if (c.scope != MemoryScope::kFragment || c.dtype != kF32 || c.rank() != 2 ||
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
  DataType input = gemm.a.buffer->dtype;
  if (!IsMmaInput(input) || gemm.b.buffer->dtype != input) return std::nullopt;
  std::optional<SharedMatrix> a = AsSharedMatrix(gemm.a);
  std::optional<SharedMatrix> b = AsSharedMatrix(gemm.b);
  if (!a || !b) return std::nullopt;
  int64_t a_m = gemm.transpose_a ? a->cols : a->rows;
  int64_t a_k = gemm.transpose_a ? a->rows : a->cols;
  int64_t b_k = gemm.transpose_b ? b->cols : b->rows;
  int64_t b_n = gemm.transpose_b ? b->rows : b->cols;
  if (a_m != *m || b_n != *n || a_k != b_k || a_k % kMmaK != 0) return std::nullopt;
  if (threads <= 0 || threads % kWarpSize != 0) return std::nullopt;
  std::optional<std::pair<int64_t, int64_t>> warps =
      SplitWarps(gemm.policy, threads / kWarpSize, *m, *n);
  if (!warps) return std::nullopt;
  return MmaPlan{*m, *n, a_k, warps->first, warps->second, a->ld, b->ld};
}

Expr Add(Expr a, Expr b) { return Binary::Make(BinaryOp::kAdd, std::move(a), std::move(b)); }
Expr Mul(Expr a, int64_t b) { return Binary::Make(BinaryOp::kMul, std::move(a), Int(b)); }
Expr Div(Expr a, int64_t b) { return Binary::Make(BinaryOp::kFloorDiv, std::move(a), Int(b)); }
Expr Mod(Expr a, int64_t b) { return Binary::Make(BinaryOp::kFloorMod, std::move(a), Int(b)); }

Layout AccumulatorLayout(const MmaPlan& plan) {
  int64_t warp_m = plan.m / plan.warps_m;
  int64_t warp_n = plan.n / plan.warps_n;
  int64_t tiles_n = warp_n / kMmaN;
  Layout layout;
  layout.inputs = {Var::Make("i"), Var::Make("j")};
  Expr i = layout.inputs[0];
  Expr j = layout.inputs[1];
  Expr warp = Add(Mul(Div(i, warp_m), plan.warps_n), Div(j, warp_n));
  Expr lane = Add(Mul(Mod(i, 8), 4), Div(Mod(j, 8), 2));
  Expr tile = Add(Mul(Div(Mod(i, warp_m), kMmaM), tiles_n), Div(Mod(j, warp_n), kMmaN));
  Expr in_tile = Add(Mul(Div(Mod(i, kMmaM), 8), 2), Mod(j, 2));
  layout.outputs = {Add(Mul(warp, kWarpSize), lane), Add(Mul(tile, 4), in_tile)};
  return layout;
}

int64_t LaunchThreads(const KernelNode& kernel) {
  int64_t threads = 1;
  for (int64_t extent : kernel.launch.threads) threads *= extent;
  return threads;
}

// Whether `fragment` (M x N) has `expected` as its layout, element for element: the stored
// layout went through layout-inference's simplification, so only values can be compared.
bool HasLayout(const BufferNode& fragment, const Layout& expected, const MmaPlan& plan) {
  if (!fragment.layout || fragment.layout->inputs.size() != 2) return false;
  const Layout& actual = *fragment.layout;
  std::vector<Expr> want =
      passes::ApplyLayout(expected, {Expr(actual.inputs[0]), Expr(actual.inputs[1])});
  std::vector<passes::VarRange> domain = {{actual.inputs[0].get(), 0, plan.m},
                                          {actual.inputs[1].get(), 0, plan.n}};
  return passes::AgreeOnDomain({actual.outputs[0], want[0]}, domain) &&
         passes::AgreeOnDomain({actual.outputs[1], want[1]}, domain);
}

// The load naming a region's first element.
Expr FirstElement(const Region& region) {
  std::vector<Expr> start;
  for (const Range& range : region.ranges) start.push_back(range.min);
  return BufferLoad::Make(region.buffer, std::move(start));
}

}  // namespace

absl::Status RegisterGemmMmaIntrinsic() {
  return RegisterCudaIntrinsic(kGemmSsIntrinsic, 13, 10,
                               "tile gemm on tensor cores: A, B in shared memory, the "
                               "accumulator fragment in registers (device/gemm_mma.cuh)");
}

std::optional<Layout> MmaAccumulatorLayout(const Gemm& gemm, int64_t threads) {
  std::optional<MmaPlan> plan = PlanMma(gemm, threads);
  if (!plan) return std::nullopt;
  return AccumulatorLayout(*plan);
}

absl::StatusOr<std::optional<Stmt>> LowerGemmToMma(const passes::GemmLoweringRequest& request) {
  const Gemm& gemm = *request.gemm;
  std::optional<MmaPlan> plan = PlanMma(gemm, LaunchThreads(*request.kernel));
  if (!plan || !HasLayout(*gemm.c.buffer, AccumulatorLayout(*plan), *plan)) {
    return std::optional<Stmt>();
  }
  if (absl::Status registered = RegisterGemmMmaIntrinsic(); !registered.ok()) return registered;
  std::vector<Expr> args = {FirstElement(gemm.a),
                            FirstElement(gemm.b),
                            BufferLoad::Make(gemm.c.buffer, {Int(0), Int(0)}),
                            Int(plan->m),
                            Int(plan->n),
                            Int(plan->k),
                            Int(plan->warps_m),
                            Int(plan->warps_n),
                            Bool(gemm.transpose_a),
                            Bool(gemm.transpose_b),
                            Bool(gemm.clear_accum),
                            Int(plan->lda),
                            Int(plan->ldb)};
  return std::optional<Stmt>(
      Evaluate::Make(Call::Make(kVoid, kGemmSsIntrinsic, std::move(args)), gemm.loc()));
}

}  // namespace tile_ir::cuda
