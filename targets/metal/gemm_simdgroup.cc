// When a gemm fits simdgroup matrices, and the accumulator layout and the call that say so.
#include "targets/metal/gemm_simdgroup.h"

#include <optional>
#include <utility>
#include <vector>

#include "passes/fragment_layout.h"
#include "passes/fragment_threads.h"
#include "passes/fresh_names.h"
#include "targets/c_source/library_call.h"

namespace tile_ir::metal {
namespace {

constexpr int64_t kSimdWidth = 32;
constexpr int64_t kTile = 8;

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

struct SimdPlan {
  int64_t m;
  int64_t n;
  int64_t k;
};

std::optional<SimdPlan> PlanSimdgroup(const Gemm& gemm, int64_t threads) {
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
  if ((input != kF16 && input != kF32) || gemm.b.buffer->dtype != input) return std::nullopt;
  std::optional<SharedMatrix> a = AsSharedMatrix(gemm.a);
  std::optional<SharedMatrix> b = AsSharedMatrix(gemm.b);
  if (!a || !b) return std::nullopt;
  int64_t a_m = gemm.transpose_a ? a->cols : a->rows;
  int64_t a_k = gemm.transpose_a ? a->rows : a->cols;
  int64_t b_k = gemm.transpose_b ? b->cols : b->rows;
  int64_t b_n = gemm.transpose_b ? b->rows : b->cols;
  if (a_m != *m || b_n != *n || a_k != b_k) return std::nullopt;
  if (*m % kTile != 0 || *n % kTile != 0 || a_k % kTile != 0) return std::nullopt;
  if (*m * *n * 4 > kMaxScratchBytes) return std::nullopt;
  if (threads <= 0 || threads % kSimdWidth != 0) return std::nullopt;
  return SimdPlan{*m, *n, a_k};
}

Layout CyclicLayout(const SimdPlan& plan, int64_t threads) {
  Layout layout;
  layout.inputs = {Var::Make("i"), Var::Make("j")};
  Expr e = Binary::Make(BinaryOp::kAdd, Binary::Make(BinaryOp::kMul, layout.inputs[0], Int(plan.n)),
                        layout.inputs[1]);
  layout.outputs = {Binary::Make(BinaryOp::kFloorMod, e, Int(threads)),
                    Binary::Make(BinaryOp::kFloorDiv, e, Int(threads))};
  return layout;
}

int64_t LaunchThreads(const KernelNode& kernel) {
  int64_t threads = 1;
  for (int64_t extent : kernel.launch.threads) threads *= extent;
  return threads;
}

bool HasLayout(const BufferNode& fragment, const Layout& expected, const SimdPlan& plan) {
  if (!fragment.layout || fragment.layout->inputs.size() != 2) return false;
  const Layout& actual = *fragment.layout;
  std::vector<Expr> want =
      passes::ApplyLayout(expected, {Expr(actual.inputs[0]), Expr(actual.inputs[1])});
  std::vector<passes::VarRange> domain = {{actual.inputs[0].get(), 0, plan.m},
                                          {actual.inputs[1].get(), 0, plan.n}};
  return passes::AgreeOnDomain({actual.outputs[0], want[0]}, domain) &&
         passes::AgreeOnDomain({actual.outputs[1], want[1]}, domain);
}

Expr FirstElement(const Region& region) {
  std::vector<Expr> start;
  for (const Range& range : region.ranges) start.push_back(range.min);
  return BufferLoad::Make(region.buffer, std::move(start));
}

}  // namespace

absl::Status RegisterGemmSimdgroupIntrinsic() {
  return c_source::RegisterLibraryIntrinsic(
      "metal.", kGemmSimdgroupIntrinsic, 11, 7,
      "tile gemm on simdgroup matrices: A, B in threadgroup memory, the cyclic accumulator "
      "fragment through a threadgroup scratch tile (device/tl_metal.h)");
}

std::optional<Layout> SimdgroupAccumulatorLayout(const Gemm& gemm, int64_t threads) {
  std::optional<SimdPlan> plan = PlanSimdgroup(gemm, threads);
  if (!plan) return std::nullopt;
  return CyclicLayout(*plan, threads);
}

absl::StatusOr<std::optional<Stmt>> LowerGemmToSimdgroup(
    const passes::GemmLoweringRequest& request) {
  const Gemm& gemm = *request.gemm;
  int64_t threads = LaunchThreads(*request.kernel);
  std::optional<SimdPlan> plan = PlanSimdgroup(gemm, threads);
  if (!plan || !HasLayout(*gemm.c.buffer, CyclicLayout(*plan, threads), *plan)) {
    return std::optional<Stmt>();
  }
  if (absl::Status registered = RegisterGemmSimdgroupIntrinsic(); !registered.ok()) {
    return registered;
  }
  Buffer scratch = BufferNode::Make(request.names->Fresh(gemm.c.buffer->name + "_simd"), kF32,
                                    {Int(plan->m), Int(plan->n)}, MemoryScope::kShared);
  std::vector<Expr> args = {FirstElement(gemm.a),
                            FirstElement(gemm.b),
                            BufferLoad::Make(gemm.c.buffer, {Int(0), Int(0)}),
                            BufferLoad::Make(scratch, {Int(0), Int(0)}),
                            Int(plan->m),
                            Int(plan->n),
                            Int(plan->k),
                            Int(threads),
                            Bool(gemm.transpose_a),
                            Bool(gemm.transpose_b),
                            Bool(gemm.clear_accum)};
  return std::optional<Stmt>(Seq::Make(
      {Allocate::Make(scratch, gemm.loc()),
       Evaluate::Make(Call::Make(kVoid, kGemmSimdgroupIntrinsic, std::move(args)), gemm.loc())},
      gemm.loc()));
}

}  // namespace tile_ir::metal
