// Integer rules for +, - and *: identities, constants gathered at the right
// ((x + 1) + y -> (x + y) + 1), cancellation and collection of like terms.
#include <optional>

#include "passes/analysis/arith/effects.h"
#include "passes/analysis/arith/expr_simplifier.h"
#include "passes/analysis/arith/rewrite_util.h"

namespace tile_ir::arith {
namespace {

// a*s1 + b*s2 over the same base (a scale may be an implicit 1): base * (s1 +/- s2).
bool CollectLikeTerms(const Expr& a, const Expr& b, bool subtract, Expr* base, Wide* scale) {
  Expr base_a, base_b;
  int64_t scale_a, scale_b;
  SplitScale(a, &base_a, &scale_a);
  SplitScale(b, &base_b, &scale_b);
  if (!SameValue(base_a, base_b)) return false;
  *base = base_a;
  *scale = subtract ? Wide{scale_a} - scale_b : Wide{scale_a} + scale_b;
  return FitsIn(*scale, a->dtype());
}

}  // namespace

Expr ExprSimplifier::RewriteAdd(const Expr& a, const Expr& b) {
  DataType dtype = a->dtype();
  std::optional<int64_t> ca = AsConstInt(a);
  std::optional<int64_t> cb = AsConstInt(b);
  if (ca && !cb) return Build(BinaryOp::kAdd, b, a);
  Expr x;
  int64_t offset;
  if (cb) {
    if (*cb == 0) return a;
    if (SplitOffset(a, &x, &offset) && FitsIn(Wide{offset} + *cb, dtype)) {
      return AddOffset(x, offset + *cb);
    }
    if (const Binary* sub = AsBinary(a, BinaryOp::kSub)) {
      std::optional<int64_t> c = AsConstInt(sub->a);
      if (c && FitsIn(Wide{*c} + *cb, dtype)) {
        return Build(BinaryOp::kSub, IntConst(dtype, Wide{*c} + *cb), sub->b);
      }
    }
    if (*cb < 0 && FitsIn(-Wide{*cb}, dtype)) {
      return Binary::Make(BinaryOp::kSub, a, IntConst(dtype, -Wide{*cb}));
    }
    return nullptr;
  }
  if (SplitOffset(a, &x, &offset)) return AddOffset(Build(BinaryOp::kAdd, x, b), offset);
  if (SplitOffset(b, &x, &offset)) return AddOffset(Build(BinaryOp::kAdd, a, x), offset);
  if (const Binary* sub = AsBinary(b, BinaryOp::kSub); sub && SameValue(sub->b, a)) return sub->a;
  if (const Binary* sub = AsBinary(a, BinaryOp::kSub); sub && SameValue(sub->b, b)) return sub->a;
  Wide scale;
  if (CollectLikeTerms(a, b, /*subtract=*/false, &x, &scale)) {
    return Build(BinaryOp::kMul, x, IntConst(dtype, scale));
  }
  return nullptr;
}

Expr ExprSimplifier::RewriteSub(const Expr& a, const Expr& b) {
  DataType dtype = a->dtype();
  std::optional<int64_t> ca = AsConstInt(a);
  std::optional<int64_t> cb = AsConstInt(b);
  Expr x;
  int64_t offset;
  if (cb) {
    if (*cb == 0) return a;
    if (SplitOffset(a, &x, &offset) && FitsIn(Wide{offset} - *cb, dtype)) {
      return AddOffset(x, offset - *cb);
    }
    if (const Binary* sub = AsBinary(a, BinaryOp::kSub)) {
      std::optional<int64_t> c = AsConstInt(sub->a);
      if (c && FitsIn(Wide{*c} - *cb, dtype)) {
        return Build(BinaryOp::kSub, IntConst(dtype, Wide{*c} - *cb), sub->b);
      }
    }
    if (*cb < 0 && FitsIn(-Wide{*cb}, dtype)) {
      return Binary::Make(BinaryOp::kAdd, a, IntConst(dtype, -Wide{*cb}));
    }
    return nullptr;
  }
  if (SameValue(a, b)) return IntConst(dtype, 0);
  if (ca) {
    if (SplitOffset(b, &x, &offset) && FitsIn(Wide{*ca} - offset, dtype)) {
      return Build(BinaryOp::kSub, IntConst(dtype, Wide{*ca} - offset), x);
    }
    if (const Binary* sub = AsBinary(b, BinaryOp::kSub)) {
      std::optional<int64_t> c = AsConstInt(sub->a);
      if (c && FitsIn(Wide{*ca} - *c, dtype)) return AddOffset(sub->b, *ca - *c);
    }
    return nullptr;
  }
  if (SplitOffset(a, &x, &offset)) return AddOffset(Build(BinaryOp::kSub, x, b), offset);
  if (SplitOffset(b, &x, &offset) && FitsIn(-Wide{offset}, dtype)) {
    return AddOffset(Build(BinaryOp::kSub, a, x), -offset);
  }
  if (const Binary* add = AsBinary(a, BinaryOp::kAdd)) {
    if (SameValue(add->a, b)) return add->b;
    if (SameValue(add->b, b)) return add->a;
  }
  Wide scale;
  if (CollectLikeTerms(a, b, /*subtract=*/true, &x, &scale)) {
    return Build(BinaryOp::kMul, x, IntConst(dtype, scale));
  }
  return nullptr;
}

Expr ExprSimplifier::RewriteMul(const Expr& a, const Expr& b) {
  DataType dtype = a->dtype();
  std::optional<int64_t> ca = AsConstInt(a);
  std::optional<int64_t> cb = AsConstInt(b);
  if (ca && !cb) return Build(BinaryOp::kMul, b, a);
  if (!cb) return nullptr;
  if (*cb == 1) return a;
  if (*cb == 0) return IsPure(a) ? IntConst(dtype, 0) : nullptr;
  Expr x;
  int64_t inner;
  if (const Binary* mul = AsBinary(a, BinaryOp::kMul)) {
    std::optional<int64_t> c = AsConstInt(mul->b);
    if (c && FitsIn(Wide{*c} * *cb, dtype)) {
      return Build(BinaryOp::kMul, mul->a, IntConst(dtype, Wide{*c} * *cb));
    }
  }
  // (x + c1) * c2 -> x * c2 + c1 * c2, so offsets keep gathering at the right.
  if (SplitOffset(a, &x, &inner) && FitsIn(Wide{inner} * *cb, dtype)) {
    return AddOffset(Build(BinaryOp::kMul, x, b), inner * *cb);
  }
  return nullptr;
}

}  // namespace tile_ir::arith
