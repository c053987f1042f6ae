// Replicated reduction layouts and lane-reduction plans, found by enumerating the layouts.
#include "passes/analysis/lane_reduction.h"

#include <algorithm>
#include <map>
#include <set>

#include "passes/analysis/arith/expr_simplifier.h"
#include "passes/analysis/fragment_layout.h"
#include "passes/analysis/fragment_threads.h"

namespace tile_ir::passes {
namespace {

// Enumeration stops here: larger tiles keep the shared-memory path.
constexpr int64_t kMaxElements = int64_t{1} << 20;

Expr Add(Expr a, Expr b) { return Binary::Make(BinaryOp::kAdd, std::move(a), std::move(b)); }
Expr Mul(Expr a, int64_t b) { return Binary::Make(BinaryOp::kMul, std::move(a), Int(b)); }

// Calls visit(index) for every index of `shape` in row-major order; false past kMaxElements.
template <typename Visit>
bool ForEachIndex(const std::vector<int64_t>& shape, Visit visit) {
  int64_t size = 1;
  for (int64_t extent : shape) {
    if (extent <= 0) return true;
    if (size > kMaxElements / extent) return false;
    size *= extent;
  }
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t point = 0; point < size; ++point) {
    int64_t rest = point;
    for (size_t d = shape.size(); d-- > 0;) {
      index[d] = rest % shape[d];
      rest /= shape[d];
    }
    if (!visit(index)) return false;
  }
  return true;
}

// (thread, register) of a layout at an index (and replica), the layout's two outputs compiled
// once: the reductions below place every element of a fragment, some several times.
class Placer {
 public:
  explicit Placer(const Layout& layout)
      : inputs_(layout.inputs.size()),
        thread_(layout.outputs[0], Slots(layout)),
        reg_(layout.outputs[1], Slots(layout)),
        values_(Slots(layout).size()) {}

  // nullopt where an output cannot be evaluated, or `index` does not bind every input.
  std::optional<std::pair<int64_t, int64_t>> operator()(const std::vector<int64_t>& index,
                                                        int64_t replica = 0) {
    if (index.size() < inputs_) return std::nullopt;
    std::copy(index.begin(), index.begin() + inputs_, values_.begin());
    if (values_.size() > inputs_) values_.back() = replica;
    std::optional<int64_t> thread = thread_.Run(values_);
    std::optional<int64_t> reg = reg_.Run(values_);
    if (!thread || !reg) return std::nullopt;
    return std::make_pair(*thread, *reg);
  }

 private:
  static std::vector<const Var*> Slots(const Layout& layout) {
    std::vector<const Var*> slots;
    for (const VarRef& input : layout.inputs) slots.push_back(input.get());
    if (layout.replica) slots.push_back(layout.replica.get());
    return slots;
  }

  size_t inputs_;
  IntProgram thread_;
  IntProgram reg_;
  std::vector<int64_t> values_;
};

// The single-bit masks whose combinations are exactly `offsets` (which holds 0), smallest
// first; nullopt when they are not such a set.
std::optional<std::vector<int64_t>> BitMasks(const std::set<int64_t>& offsets) {
  int64_t bits = 0;
  for (int64_t offset : offsets) {
    if (offset < 0) return std::nullopt;
    bits |= offset;
  }
  std::vector<int64_t> masks;
  for (int64_t bit = 1; bit <= bits && bit > 0; bit <<= 1) {
    if (bits & bit) masks.push_back(bit);
  }
  if (masks.size() >= 62 || offsets.size() != (size_t{1} << masks.size())) return std::nullopt;
  return masks;
}

// The row index (the other dimensions) of a source index.
std::vector<int64_t> RowOf(const std::vector<int64_t>& index, int dim) {
  std::vector<int64_t> row = index;
  row.erase(row.begin() + dim);
  return row;
}

}  // namespace

Expr CombineReduced(ReduceKind kind, const Expr& acc, const Expr& x) {
  switch (kind) {
    case ReduceKind::kSum:
    case ReduceKind::kAbsSum: return Binary::Make(BinaryOp::kAdd, acc, x);
    case ReduceKind::kMax:
    case ReduceKind::kAbsMax: return Binary::Make(BinaryOp::kMax, acc, x);
    case ReduceKind::kMin: return Binary::Make(BinaryOp::kMin, acc, x);
    case ReduceKind::kProd: return Binary::Make(BinaryOp::kMul, acc, x);
    case ReduceKind::kBitAnd: return Binary::Make(BinaryOp::kBitAnd, acc, x);
    case ReduceKind::kBitOr: return Binary::Make(BinaryOp::kBitOr, acc, x);
    case ReduceKind::kBitXor: return Binary::Make(BinaryOp::kXor, acc, x);
  }
  return nullptr;
}

Expr MagnitudeIfAbs(ReduceKind kind, const Expr& x) {
  const bool magnitude = kind == ReduceKind::kAbsMax || kind == ReduceKind::kAbsSum;
  return magnitude ? Call::Make(x->dtype(), "abs", {x}) : x;
}

std::optional<Layout> LaneReplicatedReducedLayout(const Layout& src,
                                                  const std::vector<int64_t>& shape, int dim,
                                                  bool keeps_dim, int warp_size, int64_t threads) {
  if (src.replicated() || dim < 0 || dim >= static_cast<int>(shape.size()) ||
      src.outputs.size() < 2 || src.inputs.size() != shape.size()) {
    return std::nullopt;
  }
  // Each row's first thread and the offsets (xor) of its other threads.
  std::map<std::vector<int64_t>, std::pair<int64_t, std::set<int64_t>>> rows;
  Placer place_src(src);
  bool ok = ForEachIndex(shape, [&](const std::vector<int64_t>& index) {
    std::optional<std::pair<int64_t, int64_t>> place = place_src(index);
    if (!place) return false;
    std::vector<int64_t> first = index;
    first[dim] = 0;
    std::optional<std::pair<int64_t, int64_t>> start = place_src(first);
    if (!start) return false;
    auto& row = rows[RowOf(index, dim)];
    row.first = start->first;
    row.second.insert(place->first ^ start->first);
    return true;
  });
  if (!ok || rows.empty()) return std::nullopt;
  const std::set<int64_t>& offsets = rows.begin()->second.second;
  std::optional<std::vector<int64_t>> masks = BitMasks(offsets);
  if (!masks || masks->empty() || masks->back() >= threads || warp_size < 1) return std::nullopt;
  int64_t mask_bits = 0;
  for (int64_t mask : *masks) mask_bits |= mask;
  for (const auto& [row, entry] : rows) {
    if (entry.second != offsets || (entry.first & mask_bits) != 0) return std::nullopt;
  }

  // thread(d, 0) + spread(r), register reg(d, 0).
  Layout reduced = ReducedLayout(src, dim, keeps_dim);
  reduced.replica = Var::Make("r", kI32);
  reduced.replicate = int64_t{1} << masks->size();
  bool contiguous = true;
  for (size_t b = 0; b < masks->size(); ++b) contiguous &= (*masks)[b] == (*masks)[0] << b;
  Expr spread;
  if (contiguous) {
    spread = Mul(reduced.replica, (*masks)[0]);
  } else {
    for (size_t b = 0; b < masks->size(); ++b) {
      Expr bit =
          Binary::Make(BinaryOp::kFloorMod,
                       Binary::Make(BinaryOp::kFloorDiv, reduced.replica, Int(1 << b)), Int(2));
      Expr term = Mul(bit, (*masks)[b]);
      spread = spread ? Add(spread, term) : term;
    }
  }
  reduced.outputs[0] = arith::SimplifyExpr(Add(reduced.outputs[0], spread));

  // Every copy on its own (thread, register) inside the block.
  std::vector<int64_t> dst_shape = shape;
  if (keeps_dim) {
    dst_shape[dim] = 1;
  } else {
    dst_shape.erase(dst_shape.begin() + dim);
  }
  std::set<std::pair<int64_t, int64_t>> taken;
  Placer place_reduced(reduced);
  ok = ForEachIndex(dst_shape, [&](const std::vector<int64_t>& index) {
    for (int64_t r = 0; r < reduced.replicate; ++r) {
      std::optional<std::pair<int64_t, int64_t>> place = place_reduced(index, r);
      if (!place || place->first < 0 || place->first >= threads || place->second < 0 ||
          !taken.insert(*place).second) {
        return false;
      }
    }
    return true;
  });
  if (!ok) return std::nullopt;
  return reduced;
}

std::optional<LaneReductionPlan> PlanLaneReduction(const BufferNode& src, const BufferNode& dst,
                                                   int dim, int64_t threads, int warp_size) {
  if (!src.layout || !dst.layout || !dst.layout->replicated() || src.layout->replicated() ||
      src.layout->outputs.size() < 2 || dst.layout->outputs.size() < 2 ||
      src.scope != MemoryScope::kFragment || dst.scope != MemoryScope::kFragment || threads <= 0 ||
      threads % warp_size != 0) {
    return std::nullopt;
  }
  std::vector<int64_t> src_shape;
  for (const Expr& extent : src.shape) {
    std::optional<int64_t> value = AsConstInt(extent);
    if (!value) return std::nullopt;
    src_shape.push_back(*value);
  }
  std::vector<int64_t> dst_shape;
  for (const Expr& extent : dst.shape) {
    std::optional<int64_t> value = AsConstInt(extent);
    if (!value) return std::nullopt;
    dst_shape.push_back(*value);
  }
  const bool keeps_dim = dst_shape.size() == src_shape.size();
  if (dim < 0 || dim >= static_cast<int>(src_shape.size())) return std::nullopt;
  // The destination row of a destination index, as RowOf gives it for the source.
  auto dst_row = [&](const std::vector<int64_t>& index) {
    std::vector<int64_t> row = index;
    if (keeps_dim) row.erase(row.begin() + dim);
    return row;
  };

  // Per thread: destination register -> row, and (row) -> the source registers in order.
  std::vector<std::map<int64_t, std::vector<int64_t>>> dst_rows(threads);
  std::map<std::vector<int64_t>, int64_t> row_ids;
  std::set<int64_t> lane_offsets;
  Placer place_dst(*dst.layout);
  bool ok = ForEachIndex(dst_shape, [&](const std::vector<int64_t>& index) {
    std::optional<std::pair<int64_t, int64_t>> first = place_dst(index, 0);
    if (!first) return false;
    for (int64_t r = 0; r < dst.layout->replicate; ++r) {
      std::optional<std::pair<int64_t, int64_t>> place = place_dst(index, r);
      if (!place || place->first < 0 || place->first >= threads) return false;
      auto [it, inserted] = dst_rows[place->first].emplace(place->second, dst_row(index));
      if (!inserted) return false;
      lane_offsets.insert(place->first ^ first->first);
    }
    return true;
  });
  if (!ok) return std::nullopt;
  std::optional<std::vector<int64_t>> masks = BitMasks(lane_offsets);
  if (!masks || masks->empty() || masks->back() >= threads) return std::nullopt;

  std::vector<std::map<std::vector<int64_t>, std::vector<int64_t>>> src_regs(threads);
  Placer place_src(*src.layout);
  ok = ForEachIndex(src_shape, [&](const std::vector<int64_t>& index) {
    std::optional<std::pair<int64_t, int64_t>> place = place_src(index);
    if (!place || place->first < 0 || place->first >= threads) return false;
    src_regs[place->first][RowOf(index, dim)].push_back(place->second);
    return true;
  });
  if (!ok) return std::nullopt;

  // Thread 0's code, which every thread must share.
  LaneReductionPlan plan;
  for (int64_t mask : *masks)
    (mask < warp_size ? plan.lane_masks : plan.warp_masks).push_back(mask);
  for (const auto& [reg, row] : dst_rows[0]) {
    auto found = src_regs[0].find(row);
    if (found == src_regs[0].end()) return std::nullopt;
    plan.registers.emplace_back(reg, found->second);
  }
  if (plan.registers.empty()) return std::nullopt;
  const int64_t extent = src_shape[dim];
  for (int64_t t = 0; t < threads; ++t) {
    if (dst_rows[t].size() != plan.registers.size()) return std::nullopt;
    size_t k = 0;
    for (const auto& [reg, row] : dst_rows[t]) {
      const auto& [plan_reg, plan_src] = plan.registers[k++];
      auto found = src_regs[t].find(row);
      if (reg != plan_reg || found == src_regs[t].end() || found->second != plan_src) {
        return std::nullopt;
      }
      // The butterfly's partners hold the same row in the same register, and together
      // the whole row.
      if (static_cast<int64_t>(plan_src.size()) << masks->size() != extent) return std::nullopt;
      for (int64_t mask : *masks) {
        int64_t partner = t ^ mask;
        if (partner >= threads) return std::nullopt;
        auto other = dst_rows[partner].find(reg);
        if (other == dst_rows[partner].end() || other->second != row) return std::nullopt;
      }
    }
  }
  return plan;
}

}  // namespace tile_ir::passes
