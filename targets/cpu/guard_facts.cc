// Guard facts: conjuncts of the enclosing guards, matched structurally.
#include "targets/cpu/guard_facts.h"

#include <cstdint>
#include <optional>

#include "tile_ir/structural_equal.h"

namespace tile_ir::cpu {
namespace {

// Whether `bound` is `limit - 1`, literally or folded.
bool IsOneBelow(const Expr& bound, const Expr& limit) {
  std::optional<int64_t> b = AsConstInt(bound);
  std::optional<int64_t> l = AsConstInt(limit);
  if (b && l) return *l > INT64_MIN && *b == *l - 1;
  const Binary* sub = As<Binary>(bound);
  return sub != nullptr && sub->op == BinaryOp::kSub && AsConstInt(sub->b) == 1 &&
         StructuralEqual(sub->a, limit);
}

}  // namespace

size_t GuardFacts::Assume(const Expr& cond) {
  size_t mark = facts_.size();
  std::vector<Expr> pending = {cond};
  while (!pending.empty()) {
    Expr e = pending.back();
    pending.pop_back();
    const Binary* binary = As<Binary>(e);
    if (binary != nullptr && binary->op == BinaryOp::kAnd) {
      pending.push_back(binary->a);
      pending.push_back(binary->b);
    } else if (binary != nullptr) {
      facts_.push_back(e);
    }
  }
  return mark;
}

Expr GuardFacts::Unclamped(const Binary& clamp) const {
  if ((clamp.op != BinaryOp::kMin && clamp.op != BinaryOp::kMax) || !clamp.dtype().is_int() ||
      clamp.dtype().is_vector()) {
    return nullptr;
  }
  // Clamps nest (min(max(i, 0), N - 1)): the inner one goes first.
  Expr a = Strip(clamp.a);
  if (Implies(clamp.op, a, clamp.b)) return a;
  Expr b = Strip(clamp.b);
  if (Implies(clamp.op, b, clamp.a)) return b;
  return nullptr;
}

Expr GuardFacts::Strip(const Expr& e) const {
  const Binary* binary = As<Binary>(e);
  if (binary == nullptr) return e;
  Expr unclamped = Unclamped(*binary);
  return unclamped ? unclamped : e;
}

bool GuardFacts::Implies(BinaryOp op, const Expr& x, const Expr& bound) const {
  for (const Expr& fact : facts_) {
    const Binary& compare = *As<Binary>(fact);
    if (!StructuralEqual(compare.a, x)) continue;
    if (op == BinaryOp::kMin) {
      if (compare.op == BinaryOp::kLt && IsOneBelow(bound, compare.b)) return true;
      if (compare.op == BinaryOp::kLe && StructuralEqual(bound, compare.b)) return true;
    } else if (compare.op == BinaryOp::kGe && StructuralEqual(bound, compare.b)) {
      return true;
    }
  }
  return false;
}

}  // namespace tile_ir::cpu
