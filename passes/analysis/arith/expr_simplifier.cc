// The simplifier's traversal, interval analysis, and the rules for unary
// operators, casts, selects and floats (the integer rules have their own files).
#include "passes/analysis/arith/expr_simplifier.h"

#include <cmath>
#include <initializer_list>

#include "passes/analysis/arith/const_fold.h"
#include "passes/analysis/arith/effects.h"
#include "passes/analysis/arith/int_math.h"
#include "passes/analysis/arith/rewrite_util.h"

namespace tile_ir::arith {
namespace {

// u64 is left out: its values reach 2^64 - 1, past the int64 bounds of IntInterval, so a range
// drawn for one (x >> 63 is 0, x <= INT64_MAX) could be wrong. Its constants still fold, exactly.
bool IsScalarInt(DataType dtype) {
  return !dtype.is_vector() && (dtype.is_int() || dtype.is_bool()) &&
         dtype.scalar() != ScalarType::kU64;
}

bool IsFloatLiteral(const Expr& e, double value) {
  const auto* imm = As<FloatImm>(e);
  return imm != nullptr && imm->value == value && !std::signbit(imm->value);
}

// The comparison that is true exactly when `op` is false, for integer operands.
BinaryOp Inverse(BinaryOp op) {
  switch (op) {
    case BinaryOp::kEq: return BinaryOp::kNe;
    case BinaryOp::kNe: return BinaryOp::kEq;
    case BinaryOp::kLt: return BinaryOp::kGe;
    case BinaryOp::kLe: return BinaryOp::kGt;
    case BinaryOp::kGt: return BinaryOp::kLe;
    case BinaryOp::kGe: return BinaryOp::kLt;
    default: return op;
  }
}

}  // namespace

void ExprSimplifier::BindRange(const VarRef& var, IntInterval range) { ranges_[var.get()] = range; }

void ExprSimplifier::BindValue(const VarRef& var, Expr value) {
  if (IsScalarInt(value->dtype())) ranges_[var.get()] = Bound(value);
  values_[var.get()] = std::move(value);
}

Expr ExprSimplifier::Simplify(const Expr& e) {
  Expr result = Mutate(e);
  bound_cache_.clear();
  return result;
}

IntInterval ExprSimplifier::Bound(const Expr& e) {
  IntInterval result = BoundOf(e);
  bound_cache_.clear();
  return result;
}

IntInterval ExprSimplifier::BoundOf(const Expr& e) {
  DataType dtype = e->dtype();
  if (!IsScalarInt(dtype)) return IntInterval::Full(kI64);
  if (std::optional<int64_t> value = AsConstInt(e)) return IntInterval::Point(*value);
  if (const auto* var = As<Var>(e)) {
    auto range = ranges_.find(var);
    return range != ranges_.end() ? range->second : IntInterval::Full(dtype);
  }
  auto cached = bound_cache_.find(e.get());
  if (cached != bound_cache_.end()) return cached->second.second;

  IntInterval result = IntInterval::Full(dtype);
  if (const auto* unary = As<Unary>(e)) {
    result = UnaryInterval(unary->op, BoundOf(unary->a), dtype);
  } else if (const auto* binary = As<Binary>(e)) {
    if (IsScalarInt(binary->a->dtype())) {
      result =
          BinaryInterval(binary->op, BoundOf(binary->a), BoundOf(binary->b), binary->a->dtype());
    }
  } else if (const auto* cast = As<Cast>(e)) {
    if (IsScalarInt(cast->value->dtype())) result = CastInterval(BoundOf(cast->value), dtype);
  } else if (const auto* select = As<Select>(e)) {
    IntInterval cond = BoundOf(select->cond);
    if (cond.min > 0) {
      result = BoundOf(select->true_value);
    } else if (cond.max == 0) {
      result = BoundOf(select->false_value);
    } else {
      result = Union(BoundOf(select->true_value), BoundOf(select->false_value));
    }
  }
  bound_cache_.emplace(e.get(), std::make_pair(e, result));
  return result;
}

bool ExprSimplifier::CannotWrap(const Expr& e) {
  const auto* binary = As<Binary>(e);
  if (binary == nullptr || !e->dtype().is_unsigned() || e->dtype().is_vector()) return true;
  IntInterval a = BoundOf(binary->a);
  IntInterval b = BoundOf(binary->b);
  auto fits = [&e](std::initializer_list<Wide> values) {
    for (Wide value : values) {
      if (!FitsIn(value, e->dtype())) return false;
    }
    return true;
  };
  switch (binary->op) {
    case BinaryOp::kAdd: return fits({Wide{a.min} + b.min, Wide{a.max} + b.max});
    case BinaryOp::kSub: return fits({Wide{a.min} - b.max, Wide{a.max} - b.min});
    case BinaryOp::kMul:
      return fits(
          {Wide{a.min} * b.min, Wide{a.min} * b.max, Wide{a.max} * b.min, Wide{a.max} * b.max});
    default: return true;
  }
}

Expr ExprSimplifier::MutateVar(const Var& node, const Expr& self) {
  auto value = values_.find(&node);
  return value != values_.end() ? value->second : self;
}

Expr ExprSimplifier::MutateUnary(const Unary& node, const Expr& self) {
  Expr a = Mutate(node.a);
  if (Expr folded = FoldUnary(node.op, a)) return folded;
  if (node.op == UnaryOp::kNot) {
    if (Expr rewritten = RewriteNot(a)) return rewritten;
  } else if (const auto* inner = As<Unary>(a); inner != nullptr && inner->op == UnaryOp::kNeg) {
    return inner->a;
  }
  return a == node.a ? self : Unary::Make(node.op, std::move(a));
}

Expr ExprSimplifier::RewriteNot(const Expr& a) {
  if (const auto* inner = As<Unary>(a); inner != nullptr && inner->op == UnaryOp::kNot) {
    return inner->a;
  }
  if (!IsScalarInt(a->dtype())) return nullptr;
  IntInterval bound = BoundOf(a);
  if (bound.is_point() && IsPure(a)) return Bool(bound.min == 0);
  const auto* cmp = As<Binary>(a);
  if (cmp == nullptr || !IsComparison(cmp->op)) return nullptr;
  // !(x < y) is x >= y only without NaN; == and != invert for every type.
  bool invertible =
      IsScalarInt(cmp->a->dtype()) || cmp->op == BinaryOp::kEq || cmp->op == BinaryOp::kNe;
  return invertible ? Build(Inverse(cmp->op), cmp->a, cmp->b) : nullptr;
}

Expr ExprSimplifier::MutateBinary(const Binary& node, const Expr& self) {
  Expr a = Mutate(node.a);
  Expr b = Mutate(node.b);
  if (Expr rewritten = Rewrite(node.op, a, b)) return rewritten;
  if (a == node.a && b == node.b) return self;
  return Binary::Make(node.op, std::move(a), std::move(b));
}

Expr ExprSimplifier::MutateCast(const Cast& node, const Expr& self) {
  Expr value = Mutate(node.value);
  if (value->dtype() == node.dtype()) return value;
  if (Expr folded = FoldCast(node.dtype(), value)) return folded;
  return value == node.value ? self : Cast::Make(node.dtype(), std::move(value));
}

Expr ExprSimplifier::MutateSelect(const Select& node, const Expr& self) {
  Expr cond = Mutate(node.cond);
  Expr true_value = Mutate(node.true_value);
  Expr false_value = Mutate(node.false_value);
  if (IsScalarInt(cond->dtype())) {
    IntInterval decided = BoundOf(cond);
    if (decided.is_point() && IsPure(cond)) {
      Expr taken = decided.min != 0 ? true_value : false_value;
      Expr dropped = decided.min != 0 ? false_value : true_value;
      if (IsPure(dropped)) return taken;
    }
    if (SameValue(true_value, false_value) && IsPure(cond)) return true_value;
  }
  if (cond == node.cond && true_value == node.true_value && false_value == node.false_value) {
    return self;
  }
  return Select::Make(std::move(cond), std::move(true_value), std::move(false_value));
}

Expr ExprSimplifier::Build(BinaryOp op, const Expr& a, const Expr& b) {
  Expr rewritten = Rewrite(op, a, b);
  return rewritten ? rewritten : Binary::Make(op, a, b);
}

Expr ExprSimplifier::AddOffset(const Expr& x, int64_t offset) {
  return offset == 0 ? x : Build(BinaryOp::kAdd, x, IntConst(x->dtype(), offset));
}

Expr ExprSimplifier::Rewrite(BinaryOp op, const Expr& a, const Expr& b) {
  if (Expr folded = FoldBinary(op, a, b)) return folded;
  DataType dtype = a->dtype();
  if (dtype.is_vector() || b->dtype() != dtype) return nullptr;
  if (dtype.is_float()) return RewriteFloat(op, a, b);
  if (!IsScalarInt(dtype)) return nullptr;
  if (IsComparison(op)) return RewriteCompare(op, a, b);
  if (IsLogical(op)) return dtype.is_bool() ? RewriteLogic(op, a, b) : nullptr;
  if (dtype.is_bool()) return nullptr;
  switch (op) {
    case BinaryOp::kAdd: return RewriteAdd(a, b);
    case BinaryOp::kSub: return RewriteSub(a, b);
    case BinaryOp::kMul: return RewriteMul(a, b);
    case BinaryOp::kMin:
    case BinaryOp::kMax: return RewriteMinMax(op, a, b);
    case BinaryOp::kXor: return RewriteXor(a, b);
    // x | 0, x << 0 and x >> 0 are x; constants fold above, nothing else is rewritten.
    case BinaryOp::kBitOr:
    case BinaryOp::kShl:
    case BinaryOp::kShr: {
      const auto* zero = As<IntImm>(b);
      return zero != nullptr && zero->value == 0 ? a : nullptr;
    }
    case BinaryOp::kBitAnd: return nullptr;
    default: return RewriteDivMod(op, a, b);
  }
}

// Only identities that hold for every value including NaN, infinities and
// signed zeros: x * 1, x / 1 and x - 0 are x; so is min or max of x with itself.
Expr ExprSimplifier::RewriteFloat(BinaryOp op, const Expr& a, const Expr& b) {
  switch (op) {
    case BinaryOp::kMul:
      if (IsFloatLiteral(b, 1.0)) return a;
      if (IsFloatLiteral(a, 1.0)) return b;
      return nullptr;
    case BinaryOp::kDiv: return IsFloatLiteral(b, 1.0) ? a : nullptr;
    case BinaryOp::kSub: return IsFloatLiteral(b, 0.0) ? a : nullptr;
    case BinaryOp::kMin:
    case BinaryOp::kMax: return SameValue(a, b) ? a : nullptr;
    default: return nullptr;
  }
}

Expr SimplifyExpr(const Expr& expr) { return ExprSimplifier().Simplify(expr); }

}  // namespace tile_ir::arith
