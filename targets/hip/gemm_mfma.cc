// When a gemm fits MFMA 32x32x8, and the accumulator layout and call that say so.
#include "targets/hip/gemm_mfma.h"

#include <cstdlib>
#include <optional>
#include <utility>
#include <vector>

#include "passes/fragment_layout.h"
#include "passes/fragment_threads.h"
#include "targets/c_source/library_call.h"

namespace tile_ir::hip {
namespace {

constexpr int64_t kWaveSize = 64;
constexpr int64_t kMfmaM = 32;
constexpr int64_t kMfmaN = 32;
constexpr int64_t kMfmaK = 8;

// A shared operand seen as a dense row-major matrix: its region's last two dimensions (the
// ones before them of extent 1), spanning the buffer's whole last dimension, so that rows
// are the buffer's rows and the region's start is the matrix's first element.
struct SharedMatrix {
  int64_t rows;
  int64_t cols;
};

std::optional<SharedMatrix> AsSharedMatrix(const Region& region) {
  const BufferNode& buffer = *region.buffer;
  if (buffer.scope != MemoryScope::kShared || !buffer.strides.empty() || buffer.layout) {
    return std::nullopt;
  }
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
  return SharedMatrix{*rows, *cols};
}

bool IsMfmaInput(DataType dtype) { return dtype == kF16 || dtype == kBF16; }

// The gemm's shape and wave grid on MFMA 32x32x8.
struct MfmaPlan {
  int64_t m;
  int64_t n;
  int64_t k;
  int64_t warps_m;
  int64_t warps_n;
};

// WARPS_M x WARPS_N = `warps` per the policy, each wave's tile a whole number of 32x32 tiles.
std::optional<std::pair<int64_t, int64_t>> SplitWarps(WarpPolicy policy, int64_t warps, int64_t m,
                                                      int64_t n) {
  auto fits = [&](int64_t wm, int64_t wn) {
    return m % (wm * kMfmaM) == 0 && n % (wn * kMfmaN) == 0;
  };
  switch (policy) {
    case WarpPolicy::kFullRow:
      if (fits(warps, 1)) return std::make_pair(warps, int64_t{1});
      return std::nullopt;
    case WarpPolicy::kFullCol:
      if (fits(1, warps)) return std::make_pair(int64_t{1}, warps);
      return std::nullopt;
    case WarpPolicy::kSquare: break;
  }
  // The wave tile closest to square; among equals, more waves along M, whose A operands
  // are shared by fewer waves.
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

std::optional<MfmaPlan> PlanMfma(const Gemm& gemm, int64_t threads) {
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
  if (!IsMfmaInput(input) || gemm.b.buffer->dtype != input) return std::nullopt;
  std::optional<SharedMatrix> a = AsSharedMatrix(gemm.a);
  std::optional<SharedMatrix> b = AsSharedMatrix(gemm.b);
  if (!a || !b) return std::nullopt;
  int64_t a_m = gemm.transpose_a ? a->cols : a->rows;
  int64_t a_k = gemm.transpose_a ? a->rows : a->cols;
  int64_t b_k = gemm.transpose_b ? b->cols : b->rows;
  int64_t b_n = gemm.transpose_b ? b->rows : b->cols;
  if (a_m != *m || b_n != *n || a_k != b_k || a_k % kMfmaK != 0) return std::nullopt;
  if (threads <= 0 || threads % kWaveSize != 0) return std::nullopt;
  std::optional<std::pair<int64_t, int64_t>> warps =
      SplitWarps(gemm.policy, threads / kWaveSize, *m, *n);
  if (!warps) return std::nullopt;
  return MfmaPlan{*m, *n, a_k, warps->first, warps->second};
}

Expr Add(Expr a, Expr b) { return Binary::Make(BinaryOp::kAdd, std::move(a), std::move(b)); }
Expr Mul(Expr a, int64_t b) { return Binary::Make(BinaryOp::kMul, std::move(a), Int(b)); }
Expr Div(Expr a, int64_t b) { return Binary::Make(BinaryOp::kFloorDiv, std::move(a), Int(b)); }
Expr Mod(Expr a, int64_t b) { return Binary::Make(BinaryOp::kFloorMod, std::move(a), Int(b)); }

Layout AccumulatorLayout(const MfmaPlan& plan) {
  int64_t wave_m = plan.m / plan.warps_m;
  int64_t wave_n = plan.n / plan.warps_n;
  int64_t tiles_n = wave_n / kMfmaN;
  Layout layout;
  layout.inputs = {Var::Make("i"), Var::Make("j")};
  Expr i = layout.inputs[0];
  Expr j = layout.inputs[1];
  Expr wave = Add(Mul(Div(i, wave_m), plan.warps_n), Div(j, wave_n));
  // The ISA's D operand: lane j + 32 * ((i / 4) % 2), item 4 * (i / 8) + i % 4 in a 32x32 tile.
  Expr lane = Add(Mod(j, 32), Mul(Mod(Div(Mod(i, kMfmaM), 4), 2), 32));
  Expr tile = Add(Mul(Div(Mod(i, wave_m), kMfmaM), tiles_n), Div(Mod(j, wave_n), kMfmaN));
  Expr item = Add(Mul(Div(Mod(i, kMfmaM), 8), 4), Mod(i, 4));
  layout.outputs = {Add(Mul(wave, kWaveSize), lane), Add(Mul(tile, 16), item)};
  return layout;
}

int64_t LaunchThreads(const KernelNode& kernel) {
  int64_t threads = 1;
  for (int64_t extent : kernel.launch.threads) threads *= extent;
  return threads;
}

// Whether `fragment` (M x N) has `expected` as its layout, element for element: the stored
// layout went through layout-inference's simplification, so only values can be compared.
bool HasLayout(const BufferNode& fragment, const Layout& expected, const MfmaPlan& plan) {
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

absl::Status RegisterGemmMfmaIntrinsic() {
  return c_source::RegisterLibraryIntrinsic(
      "hip.", kGemmMfmaIntrinsic, 11, 8,
      "tile gemm on matrix cores (MFMA 32x32x8): A, B in LDS, the accumulator fragment in "
      "registers (device/gemm_mfma.h)");
}

std::optional<Layout> MfmaAccumulatorLayout(const Gemm& gemm, int64_t threads) {
  std::optional<MfmaPlan> plan = PlanMfma(gemm, threads);
  if (!plan) return std::nullopt;
  return AccumulatorLayout(*plan);
}

absl::StatusOr<std::optional<Stmt>> LowerGemmToMfma(const passes::GemmLoweringRequest& request) {
  const Gemm& gemm = *request.gemm;
  std::optional<MfmaPlan> plan = PlanMfma(gemm, LaunchThreads(*request.kernel));
  if (!plan || !HasLayout(*gemm.c.buffer, AccumulatorLayout(*plan), *plan)) {
    return std::optional<Stmt>();
  }
  if (absl::Status registered = RegisterGemmMfmaIntrinsic(); !registered.ok()) return registered;
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
                            Bool(gemm.clear_accum)};
  return std::optional<Stmt>(
      Evaluate::Make(Call::Make(kVoid, kGemmMfmaIntrinsic, std::move(args)), gemm.loc()));
}

}  // namespace tile_ir::hip
