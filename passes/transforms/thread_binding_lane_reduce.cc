// Binding with several threads per block: a reduction whose rows lie across lanes, as each
// thread's own combine of its registers and a shuffle butterfly (passes/analysis/
// lane_reduction.h). Every thread runs the same straight-line code, so every lane of every
// warp takes part in each shuffle.
#include <optional>
#include <utility>
#include <vector>

#include "passes/analysis/lane_reduction.h"
#include "passes/transforms/thread_binding_binder.h"
#include "tile_ir/intrinsics.h"

namespace tile_ir::passes::thread_binding {

std::optional<Stmt> Binder::LaneReduce(const Reduce& op) {
  auto src = fragments_.find(op.src.buffer.get());
  auto dst = fragments_.find(op.dst.buffer.get());
  if (src == fragments_.end() || dst == fragments_.end()) return std::nullopt;
  std::optional<LaneReductionPlan> plan =
      PlanLaneReduction(*op.src.buffer, *op.dst.buffer, op.dim, threads_, warp_size_);
  if (!plan) return std::nullopt;
  const Buffer& src_local = src->second.local;
  const Buffer& dst_local = dst->second.local;
  const DataType type = dst_local->dtype;
  std::vector<Stmt> stmts;
  // Each step a let of its own: the combines stay a flat sequence rather than a deep tree.
  auto bind = [&](Expr value) {
    VarRef var = Var::Make(names_.Fresh(op.dst.buffer->name + "_part"), type);
    stmts.push_back(Let::Make(var, std::move(value), op.loc()));
    return Expr(var);
  };
  auto element = [&](int64_t reg) {
    Expr x = BufferLoad::Make(src_local, {Int(reg)});
    if (x->dtype() != type) x = Cast::Make(type, x);
    return op.reduce_kind == ReduceKind::kAbsMax ? Call::Make(type, "abs", {x}) : x;
  };
  for (const auto& [dst_reg, src_regs] : plan->registers) {
    Expr acc = bind(element(src_regs.front()));
    for (size_t k = 1; k < src_regs.size(); ++k) {
      acc = bind(CombineReduced(op.reduce_kind, acc, element(src_regs[k])));
    }
    for (int64_t mask : plan->lane_masks) {
      Expr other = Call::Make(type, kLaneShuffleXor, {acc, Int(mask)});
      acc = bind(CombineReduced(op.reduce_kind, acc, other));
    }
    Expr old = BufferLoad::Make(dst_local, {Int(dst_reg)});
    if (op.reduce_kind == ReduceKind::kAbsMax) old = Call::Make(type, "abs", {old});
    Expr result = op.clear ? acc : CombineReduced(op.reduce_kind, old, acc);
    stmts.push_back(Store::Make(dst_local, {Int(dst_reg)}, std::move(result), op.loc()));
  }
  return Seq::Make(std::move(stmts), op.loc());
}

}  // namespace tile_ir::passes::thread_binding
