// Integer rules for min, max, comparisons and bool logic; most are decided by
// interval analysis (i < 128 -> true for 0 <= i < 128, min(i, 127) -> i).
#include <algorithm>
#include <optional>

#include "passes/analysis/arith/effects.h"
#include "passes/analysis/arith/expr_simplifier.h"
#include "passes/analysis/arith/rewrite_util.h"

namespace tile_ir::arith {
namespace {

// The comparison with its operands swapped: c < x is x > c.
BinaryOp Mirror(BinaryOp op) {
  switch (op) {
    case BinaryOp::kLt: return BinaryOp::kGt;
    case BinaryOp::kLe: return BinaryOp::kGe;
    case BinaryOp::kGt: return BinaryOp::kLt;
    case BinaryOp::kGe: return BinaryOp::kLe;
    default: return op;
  }
}

}  // namespace

Expr ExprSimplifier::RewriteMinMax(BinaryOp op, const Expr& a, const Expr& b) {
  DataType dtype = a->dtype();
  std::optional<int64_t> ca = AsConstInt(a);
  std::optional<int64_t> cb = AsConstInt(b);
  if (ca && !cb) return Build(op, b, a);
  if (SameValue(a, b)) return a;
  bool is_min = op == BinaryOp::kMin;
  IntInterval range_a = BoundOf(a);
  IntInterval range_b = BoundOf(b);
  bool a_wins = is_min ? range_a.max <= range_b.min : range_a.min >= range_b.max;
  bool b_wins = is_min ? range_b.max <= range_a.min : range_b.min >= range_a.max;
  if (a_wins && IsPure(b)) return a;
  if (b_wins && IsPure(a)) return b;
  if (const Binary* inner = AsBinary(a, op); inner != nullptr && cb) {
    if (std::optional<int64_t> c = AsConstInt(inner->b)) {
      int64_t bound = is_min ? std::min(*c, *cb) : std::max(*c, *cb);
      return Build(op, inner->a, IntConst(dtype, bound));
    }
  }
  return nullptr;
}

Expr ExprSimplifier::RewriteCompare(BinaryOp op, const Expr& a, const Expr& b) {
  DataType dtype = a->dtype();
  std::optional<int64_t> ca = AsConstInt(a);
  std::optional<int64_t> cb = AsConstInt(b);
  if (ca && !cb) return Build(Mirror(op), b, a);
  if (SameValue(a, b)) {
    return Bool(op == BinaryOp::kEq || op == BinaryOp::kLe || op == BinaryOp::kGe);
  }
  IntInterval decided = BinaryInterval(op, BoundOf(a), BoundOf(b), dtype);
  if (decided.is_point() && IsPure(a) && IsPure(b)) return Bool(decided.min != 0);
  if (!cb) return nullptr;
  if (dtype.is_bool()) {
    // b == true is b; b == false is !b.
    if (op != BinaryOp::kEq && op != BinaryOp::kNe) return nullptr;
    if ((op == BinaryOp::kEq) == (*cb != 0)) return a;
    Expr negated = RewriteNot(a);
    return negated ? negated : Unary::Make(UnaryOp::kNot, a);
  }
  // x + c1 < c2 -> x < c2 - c1, unless x + c1 may wrap (the two would differ).
  Expr x;
  int64_t offset;
  if (!SplitOffset(a, &x, &offset) || !CannotWrap(a)) return nullptr;
  Wide moved = Wide{*cb} - offset;
  return FitsIn(moved, dtype) ? Build(op, x, IntConst(dtype, moved)) : nullptr;
}

Expr ExprSimplifier::RewriteLogic(BinaryOp op, const Expr& a, const Expr& b) {
  std::optional<int64_t> ca = AsConstInt(a);
  std::optional<int64_t> cb = AsConstInt(b);
  if (ca && !cb) return Build(op, b, a);
  bool is_and = op == BinaryOp::kAnd;
  if (cb) {
    // true && x and false || x are x; false && x and true || x are decided.
    if ((*cb != 0) == is_and) return a;
    return IsPure(a) ? Bool(!is_and) : nullptr;
  }
  if (SameValue(a, b)) return a;
  IntInterval decided = BinaryInterval(op, BoundOf(a), BoundOf(b), kBool);
  if (decided.is_point() && IsPure(a) && IsPure(b)) return Bool(decided.min != 0);
  return nullptr;
}

}  // namespace tile_ir::arith
