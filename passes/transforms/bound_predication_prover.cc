// Interval facts from the expression simplifier, and symbolic bounds that
// follow monotone operators down to the kernel's launch values.
#include "passes/transforms/bound_predication_prover.h"

#include <optional>

#include "passes/analysis/arith/effects.h"
#include "passes/analysis/arith/int_math.h"
#include "tile_ir/op_shorthand.h"

namespace tile_ir::passes {
namespace {

// Symbolic bounds recurse through variables' ranges; real kernels nest a few
// loops, so a deeper chain is given up rather than followed.
constexpr int kMaxDepth = 64;

bool IsScalarInt(const Expr& e) { return e->dtype().is_int() && !e->dtype().is_vector(); }

// `e` converted to `dtype` (integer types only).
Expr Widen(const Expr& e, DataType dtype) { return e->dtype() == dtype ? e : Cast::Make(dtype, e); }

DataType Wider(DataType a, DataType b) { return a.bits() >= b.bits() ? a : b; }

}  // namespace

void BoundProver::BindDim(const VarRef& dim) {
  simplifier_.BindRange(dim, {1, arith::TypeMax(dim->dtype())});
}

void BoundProver::BindRange(const VarRef& var, const Expr& min, const Expr& extent) {
  DataType dtype = var->dtype();
  arith::IntInterval low = simplifier_.Bound(min);
  arith::IntInterval count = simplifier_.Bound(extent);
  // The variable only exists while the loop runs, so an empty loop says nothing.
  if (count.max >= 1) {
    arith::Wide last = arith::Wide{low.max} + count.max - 1;
    if (arith::FitsIn(last, dtype) && arith::FitsIn(low.min, dtype)) {
      simplifier_.BindRange(var, {low.min, static_cast<int64_t>(last)});
    }
  }
  if (arith::IsMemoryFree(min) && arith::IsMemoryFree(extent)) {
    Expr lowest = Widen(min, dtype);
    Expr highest =
        Op(BinaryOp::kSub, Op(BinaryOp::kAdd, lowest, Widen(extent, dtype)), Int(1, dtype));
    ranges_[var.get()] = {lowest, highest};
  }
}

void BoundProver::BindLet(const VarRef& var, const Expr& value) {
  if (!IsScalarInt(value)) return;
  simplifier_.BindRange(var, simplifier_.Bound(value));
  if (arith::IsMemoryFree(value)) ranges_[var.get()] = {value, value};
}

bool BoundProver::ProveBelow(const Expr& index, const Expr& size) {
  DataType dtype = Wider(index->dtype(), size->dtype());
  Expr i = Widen(index, dtype);
  Expr n = Widen(size, dtype);
  if (simplifier_.Bound(i).max < simplifier_.Bound(n).min) return true;
  Expr highest = SymbolicBound(i, /*upper=*/true, 0);
  if (highest == nullptr) return false;
  Expr room = simplifier_.Simplify(Op(BinaryOp::kSub, n, highest));
  return simplifier_.Bound(room).min >= 1;
}

bool BoundProver::NonNegative(const Expr& e, int depth) {
  if (simplifier_.Bound(e).min >= 0) return true;
  Expr lowest = SymbolicBound(e, /*upper=*/false, depth);
  return lowest != nullptr && simplifier_.Bound(simplifier_.Simplify(lowest)).min >= 0;
}

Expr BoundProver::SymbolicBound(const Expr& e, bool upper, int depth) {
  if (depth > kMaxDepth || !IsScalarInt(e)) return nullptr;
  if (AsConstInt(e)) return e;
  if (const Var* var = As<Var>(e)) {
    auto range = ranges_.find(var);
    // Dimensions and scalar parameters are fixed for the whole launch.
    if (range == ranges_.end()) return e;
    return SymbolicBound(upper ? range->second.second : range->second.first, upper, depth + 1);
  }
  if (const Cast* cast = As<Cast>(e)) {
    // Widening keeps the order; narrowing may wrap.
    if (!IsScalarInt(cast->value) || cast->value->dtype().bits() > e->dtype().bits()) {
      return nullptr;
    }
    Expr inner = SymbolicBound(cast->value, upper, depth + 1);
    return inner ? Cast::Make(e->dtype(), inner) : nullptr;
  }
  const Binary* binary = As<Binary>(e);
  if (binary == nullptr) return nullptr;
  auto bound = [&](const Expr& x, bool up) { return SymbolicBound(x, up, depth + 1); };
  std::optional<int64_t> b_const = AsConstInt(binary->b);
  std::optional<int64_t> a_const = AsConstInt(binary->a);
  switch (binary->op) {
    case BinaryOp::kAdd: {
      Expr a = bound(binary->a, upper);
      Expr b = bound(binary->b, upper);
      return a && b ? Op(BinaryOp::kAdd, a, b) : nullptr;
    }
    case BinaryOp::kSub: {
      Expr a = bound(binary->a, upper);
      Expr b = bound(binary->b, !upper);
      return a && b ? Op(BinaryOp::kSub, a, b) : nullptr;
    }
    case BinaryOp::kMul: {
      // By a constant: the bound on the same side when it is not negative.
      if (b_const || a_const) {
        const Expr& x = b_const ? binary->a : binary->b;
        int64_t c = b_const ? *b_const : *a_const;
        Expr inner = bound(x, c >= 0 ? upper : !upper);
        return inner ? Op(BinaryOp::kMul, inner, Int(c, e->dtype())) : nullptr;
      }
      // Of two non-negative factors: the product of the bounds on the same side.
      if (!NonNegative(binary->a, depth + 1) || !NonNegative(binary->b, depth + 1)) return nullptr;
      Expr a = bound(binary->a, upper);
      Expr b = bound(binary->b, upper);
      return a && b ? Op(BinaryOp::kMul, a, b) : nullptr;
    }
    case BinaryOp::kDiv:
    case BinaryOp::kFloorDiv:
    case BinaryOp::kCeilDiv: {
      // Division by a positive constant does not change the order.
      if (!b_const || *b_const <= 0) return nullptr;
      Expr a = bound(binary->a, upper);
      return a ? Op(binary->op, a, binary->b) : nullptr;
    }
    case BinaryOp::kMod:
    case BinaryOp::kFloorMod: {
      // In [0, c - 1] for a positive constant c (for truncating %, when the
      // dividend is not negative); in [0, b - 1] for a divisor b proved positive
      // that is fixed for the launch (a grid extent: a persistent kernel's tile
      // index, tile / gx % gy).
      if (binary->op == BinaryOp::kMod && !NonNegative(binary->a, depth + 1)) return nullptr;
      if (b_const) {
        if (*b_const <= 0) return nullptr;
        return Int(upper ? *b_const - 1 : 0, e->dtype());
      }
      if (simplifier_.Bound(binary->b).min < 1 || !arith::IsMemoryFree(binary->b)) return nullptr;
      if (!upper) return Int(0, e->dtype());
      Expr highest = bound(binary->b, /*up=*/true);
      return highest ? Op(BinaryOp::kSub, highest, Int(1, e->dtype())) : nullptr;
    }
    case BinaryOp::kMin:
    case BinaryOp::kMax: {
      Expr a = bound(binary->a, upper);
      Expr b = bound(binary->b, upper);
      // min(a, b) <= a and max(a, b) >= a: one side suffices for those.
      bool either = (binary->op == BinaryOp::kMin) == upper;
      if (a && b) return Op(binary->op, a, b);
      return either ? (a ? a : b) : nullptr;
    }
    default:
      return nullptr;
  }
}

}  // namespace tile_ir::passes
