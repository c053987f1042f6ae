// Binding with several threads per block: a reduction whose rows lie across lanes, as each
// thread's own combine of its registers and a shuffle butterfly (passes/analysis/
// lane_reduction.h). Every thread runs the same straight-line code, so every lane of every
// warp takes part in each shuffle.
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "passes/analysis/arith/expr_simplifier.h"
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
  auto bind_index = [&](Expr value) {
    VarRef var = Var::Make(names_.Fresh("row_lane0"), kI32);
    stmts.push_back(Let::Make(var, std::move(value), op.loc()));
    return Expr(var);
  };
  auto element = [&](int64_t reg) {
    Expr x = BufferLoad::Make(src_local, {Int(reg)});
    if (x->dtype() != type) x = Cast::Make(type, x);
    return MagnitudeIfAbs(op.reduce_kind, x);
  };
  // Each thread's combine of its registers of each row, then the butterfly over the lanes.
  std::vector<Expr> partials;
  for (const auto& [dst_reg, src_regs] : plan->registers) {
    Expr acc = bind(element(src_regs.front()));
    for (size_t k = 1; k < src_regs.size(); ++k) {
      acc = bind(CombineReduced(op.reduce_kind, acc, element(src_regs[k])));
    }
    for (int64_t mask : plan->lane_masks) {
      Expr other = Call::Make(type, kLaneShuffleXor, {acc, Int(mask)});
      acc = bind(CombineReduced(op.reduce_kind, acc, other));
    }
    partials.push_back(acc);
  }
  if (!plan->warp_masks.empty()) {
    // Rows across warps: the first lane of each row's lane group leaves its warp's partial in
    // a shared slot of its own, and every thread then combines the slots of its row's warps,
    // in the order of the warp bits, from the same first lanes. Only first lanes store, so a
    // slot is numbered by the thread index with the lane-mask bits squeezed out: the scratch
    // holds T / 2^(lane masks) partials per register, not T (an mma/wgmma accumulator's
    // rows lie across 4 lanes: a quarter of the bytes, which is what lets TileLang's MLA
    // decode fit at 2 stages). insert-barriers orders the stores before the loads (and the
    // loads before the next round's stores).
    const int64_t count = static_cast<int64_t>(partials.size());
    const int64_t group = int64_t{1} << plan->lane_masks.size();
    const int64_t per_register = (threads_ + group - 1) / group;
    // One scratch buffer per register: the first lanes' stores then name distinct buffers,
    // which insert-barriers can see do not exchange data inside the first-lane branch.
    std::vector<Buffer> scratch;
    for (int64_t k = 0; k < count; ++k) {
      scratch.push_back(BufferNode::Make(names_.Fresh(op.dst.buffer->name + "_warps"), type,
                                         {Int(per_register)}, MemoryScope::kShared));
      mirror_list_.push_back(scratch.back());
    }
    Expr thread = thread_->dtype() == kI32 ? thread_ : Cast::Make(kI32, thread_);
    auto bit = [&](int64_t mask) {
      return Binary::Make(BinaryOp::kFloorMod, Binary::Make(BinaryOp::kFloorDiv, thread, Int(mask)),
                          Int(2));
    };
    // x with the lane-mask bits removed (the bits above each one shift down): for lane masks
    // that are the lowest bits, as on every accumulator layout we know, x / 2^(masks).
    const std::vector<int64_t>& lane_masks = plan->lane_masks;  // smallest first
    bool lowest_bits = true;
    for (size_t b = 0; b < lane_masks.size(); ++b) lowest_bits &= lane_masks[b] == int64_t{1} << b;
    auto squeeze = [&](Expr x) {
      if (lowest_bits) return arith::SimplifyExpr(Binary::Make(BinaryOp::kFloorDiv, x, Int(group)));
      for (auto m = lane_masks.rbegin(); m != lane_masks.rend(); ++m) {
        Expr high = Binary::Make(BinaryOp::kMul, Binary::Make(BinaryOp::kFloorDiv, x, Int(2 * *m)),
                                 Int(*m));
        x = Binary::Make(BinaryOp::kAdd, high, Binary::Make(BinaryOp::kFloorMod, x, Int(*m)));
      }
      return arith::SimplifyExpr(x);
    };
    auto squeezed_mask = [&](int64_t mask) {
      int64_t below = 0;
      for (int64_t lane : lane_masks) below += lane < mask ? 1 : 0;
      return mask >> below;
    };
    Expr first_lane;
    Expr row_base = thread;
    for (int64_t mask : plan->lane_masks) {
      Expr clear = Binary::Make(BinaryOp::kEq, bit(mask), Int(0));
      first_lane = first_lane ? Binary::Make(BinaryOp::kAnd, first_lane, clear) : clear;
    }
    for (const std::vector<int64_t>* masks : {&plan->lane_masks, &plan->warp_masks}) {
      for (int64_t mask : *masks) {
        row_base = Binary::Make(BinaryOp::kSub, row_base,
                                Binary::Make(BinaryOp::kMul, bit(mask), Int(mask)));
      }
    }
    row_base = bind_index(squeeze(row_base));
    Expr own_slot = squeeze(thread);
    std::vector<Stmt> leave;
    for (int64_t k = 0; k < count; ++k) {
      leave.push_back(Store::Make(scratch[k], {own_slot}, partials[k], op.loc()));
    }
    Stmt stores = Seq::Make(std::move(leave), op.loc());
    stmts.push_back(first_lane ? If::Make(first_lane, stores, nullptr, op.loc()) : stores);
    const size_t warps = plan->warp_masks.size();
    for (int64_t k = 0; k < count; ++k) {
      Expr acc;
      for (int64_t combo = 0; combo < (int64_t{1} << warps); ++combo) {
        int64_t offset = 0;
        for (size_t b = 0; b < warps; ++b) {
          if ((combo >> b) & 1) offset += squeezed_mask(plan->warp_masks[b]);
        }
        Expr slot = arith::SimplifyExpr(Binary::Make(BinaryOp::kAdd, row_base, Int(offset)));
        Expr value = BufferLoad::Make(scratch[k], {slot});
        acc = bind(acc ? CombineReduced(op.reduce_kind, acc, value) : value);
      }
      partials[k] = acc;
    }
  }
  for (size_t k = 0; k < partials.size(); ++k) {
    const int64_t dst_reg = plan->registers[k].first;
    Expr acc = partials[k];
    Expr old = BufferLoad::Make(dst_local, {Int(dst_reg)});
    old = MagnitudeIfAbs(op.reduce_kind, old);
    Expr result = op.clear ? acc : CombineReduced(op.reduce_kind, old, acc);
    stmts.push_back(Store::Make(dst_local, {Int(dst_reg)}, std::move(result), op.loc()));
  }
  return Seq::Make(std::move(stmts), op.loc());
}

}  // namespace tile_ir::passes::thread_binding
