// Integer rules for division and modulo by a positive literal, most of them
// decided by the numerator's range: floordiv(i, 128) -> 0 and
// floormod(i, 128) -> i for 0 <= i < 128, floordiv(x * 128 + i, 128) -> x.
#include <optional>

#include "passes/analysis/arith/effects.h"
#include "passes/analysis/arith/expr_simplifier.h"
#include "passes/analysis/arith/rewrite_util.h"

namespace tile_ir::arith {
namespace {

// Whether e is a multiple of `divisor` by its form (a literal or x * c), and
// if so e / divisor as a literal or as x and a new scale.
bool SplitMultiple(const Expr& e, int64_t divisor, Expr* base, int64_t* quotient) {
  if (std::optional<int64_t> c = AsConstInt(e)) {
    if (*c % divisor != 0) return false;
    *base = nullptr;
    *quotient = *c / divisor;
    return true;
  }
  const Binary* mul = AsBinary(e, BinaryOp::kMul);
  std::optional<int64_t> scale = mul ? AsConstInt(mul->b) : std::nullopt;
  if (!scale || *scale % divisor != 0) return false;
  *base = mul->a;
  *quotient = *scale / divisor;
  return true;
}

}  // namespace

Expr ExprSimplifier::RewriteDivMod(BinaryOp op, const Expr& a, const Expr& b) {
  std::optional<int64_t> divisor = AsConstInt(b);
  if (!divisor || *divisor <= 0) return nullptr;
  DataType dtype = a->dtype();
  bool is_mod = op == BinaryOp::kMod || op == BinaryOp::kFloorMod;
  if (*divisor == 1) {
    if (!is_mod) return a;
    return IsPure(a) ? IntConst(dtype, 0) : nullptr;
  }
  Expr base;
  int64_t quotient;
  // An exact multiple divides the same way under every rounding.
  if (SplitMultiple(a, *divisor, &base, &quotient) && base != nullptr && CannotWrap(a)) {
    if (!is_mod) return Build(BinaryOp::kMul, base, IntConst(dtype, quotient));
    return IsPure(a) ? IntConst(dtype, 0) : nullptr;
  }
  IntInterval range = BoundOf(a);
  if (op == BinaryOp::kCeilDiv) {
    Wide low = CeilDiv(range.min, *divisor);
    return low == CeilDiv(range.max, *divisor) && IsPure(a) ? IntConst(dtype, low) : nullptr;
  }
  // Truncation rounds like floor for a numerator that cannot be negative.
  if (op == BinaryOp::kFloorDiv || op == BinaryOp::kFloorMod || range.min >= 0) {
    return RewriteFloorDivMod(is_mod, a, *divisor);
  }
  return nullptr;
}

Expr ExprSimplifier::RewriteFloorDivMod(bool is_mod, const Expr& a, int64_t divisor) {
  DataType dtype = a->dtype();
  IntInterval range = BoundOf(a);
  Wide quotient = FloorDiv(range.min, divisor);
  if (quotient == FloorDiv(range.max, divisor)) {
    if (!is_mod) return IsPure(a) ? IntConst(dtype, quotient) : nullptr;
    Wide shift = -quotient * divisor;
    return FitsIn(shift, dtype) ? AddOffset(a, static_cast<int64_t>(shift)) : nullptr;
  }
  // (q * divisor + r) splits when r's quotient is decided by its range.
  const Binary* add = AsBinary(a, BinaryOp::kAdd);
  if (add != nullptr && CannotWrap(a)) {
    for (bool multiple_first : {true, false}) {
      const Expr& multiple = multiple_first ? add->a : add->b;
      const Expr& rest = multiple_first ? add->b : add->a;
      Expr base;
      int64_t scale;
      if (!SplitMultiple(multiple, divisor, &base, &scale) || !CannotWrap(multiple)) continue;
      IntInterval rest_range = BoundOf(rest);
      Wide rest_quotient = FloorDiv(rest_range.min, divisor);
      if (rest_quotient != FloorDiv(rest_range.max, divisor)) continue;
      if (is_mod) {
        Wide shift = -rest_quotient * divisor;
        if (!IsPure(multiple) || !FitsIn(shift, dtype)) return nullptr;
        return AddOffset(rest, static_cast<int64_t>(shift));
      }
      if (!IsPure(rest)) return nullptr;
      Expr scaled =
          base ? Build(BinaryOp::kMul, base, IntConst(dtype, scale)) : IntConst(dtype, scale);
      return AddOffset(scaled, static_cast<int64_t>(rest_quotient));
    }
  }
  // floordiv(floordiv(x, c1), c2) -> floordiv(x, c1 * c2) and
  // floormod(floormod(x, c1), c2) -> floormod(x, c2) when c2 divides c1.
  BinaryOp inner_op = is_mod ? BinaryOp::kFloorMod : BinaryOp::kFloorDiv;
  if (const Binary* inner = AsBinary(a, inner_op)) {
    std::optional<int64_t> inner_divisor = AsConstInt(inner->b);
    if (inner_divisor && *inner_divisor > 0) {
      if (is_mod && *inner_divisor % divisor == 0) {
        return Build(BinaryOp::kFloorMod, inner->a, IntConst(dtype, divisor));
      }
      Wide product = Wide{*inner_divisor} * divisor;
      if (!is_mod && FitsIn(product, dtype)) {
        return Build(BinaryOp::kFloorDiv, inner->a, IntConst(dtype, product));
      }
    }
  }
  return nullptr;
}

}  // namespace tile_ir::arith
