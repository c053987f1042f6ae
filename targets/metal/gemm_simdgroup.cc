// When a gemm fits simdgroup matrices, and the accumulator layout and the call that say so.
#include "targets/metal/gemm_simdgroup.h"

#include <optional>
#include <utility>
#include <vector>

#include "passes/analysis/gemm_operands.h"
#include "passes/utils/fresh_names.h"
#include "targets/c_source/library_call.h"

namespace tile_ir::metal {
namespace {

constexpr int64_t kSimdWidth = 32;
constexpr int64_t kTile = 8;

struct SimdPlan {
  int64_t m;
  int64_t n;
  int64_t k;
};

std::optional<SimdPlan> PlanSimdgroup(const Gemm& gemm, int64_t threads) {
  DataType input = gemm.a.buffer->dtype;
  if ((input != kF16 && input != kF32) || gemm.b.buffer->dtype != input) return std::nullopt;
  // The device library reads dense threadgroup tiles only. A fragment A (attention's P) is
  // seen as the dense tile the generic lowering stages it in: a simdgroup_matrix's per-thread
  // layout is not documented, so no fragment can be one as it stands.
  std::optional<passes::GemmOperands> operands =
      passes::MatchGemmOperands(gemm, [&](const Region& region) {
        return &region == &gemm.a && region.buffer->scope == MemoryScope::kFragment
                   ? passes::AsWholeFragmentMatrix(region)
                   : passes::AsSharedMatrix(region, /*padded_row_alignment_bytes=*/0);
      });
  if (!operands) return std::nullopt;
  SimdPlan plan{operands->m, operands->n, operands->k};
  if (plan.m % kTile != 0 || plan.n % kTile != 0 || plan.k % kTile != 0) return std::nullopt;
  if (plan.m * plan.n * 4 > kMaxScratchBytes) return std::nullopt;
  if (threads <= 0 || threads % kSimdWidth != 0) return std::nullopt;
  return plan;
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
  int64_t threads = passes::LaunchThreads(*request.kernel);
  std::optional<SimdPlan> plan = PlanSimdgroup(gemm, threads);
  // A fragment A is left to the generic lowering, which stages it in threadgroup memory with a
  // remark and asks again with A there.
  if (!plan || gemm.a.buffer->scope == MemoryScope::kFragment ||
      !passes::HasFragmentLayout(*gemm.c.buffer, CyclicLayout(*plan, threads), plan->m, plan->n)) {
    return std::optional<Stmt>();
  }
  Buffer scratch = BufferNode::Make(request.names->Fresh(gemm.c.buffer->name + "_simd"), kF32,
                                    {Int(plan->m), Int(plan->n)}, MemoryScope::kShared);
  std::vector<Expr> args = {passes::FirstElement(gemm.a),
                            passes::FirstElement(gemm.b),
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
