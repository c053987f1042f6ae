// Facts that hold where a guarded arm of CPU code runs, used to drop the index
// clamps of guarded loads. Bound predication writes `select(i < N,
// A[min(i, N - 1)], 0)` because the IR's select evaluates both arms; the CPU
// code generator evaluates only the arm it takes, where `i < N` holds and the
// clamp is the identity. Without the clamp the index stays affine in the loop
// variable, so LLVM vectorizes the load as a masked contiguous load rather
// than a gather (3x faster for the copies into shared tiles of a gemm).
#ifndef TARGETS_CPU_GUARD_FACTS_H_
#define TARGETS_CPU_GUARD_FACTS_H_

#include <cstddef>
#include <vector>

#include "tile_ir/expr.h"

namespace tile_ir::cpu {

class GuardFacts {
 public:
  // Takes the conjuncts of `cond` (a scalar bool) as true until Forget.
  // Returns what to pass to Forget on leaving the guarded code.
  size_t Assume(const Expr& cond);
  void Forget(size_t mark) { facts_.resize(mark); }

  // For an integer min(x, b) or max(x, b) (either operand order, x itself
  // possibly such a clamp) that the facts make x: x, without its clamps
  // (`x < y` gives min(x, y - 1) = x, `x <= b` min(x, b) = x, `x >= b`
  // max(x, b) = x). Otherwise null.
  Expr Unclamped(const Binary& clamp) const;

 private:
  // `e` without the clamps the facts make the identity.
  Expr Strip(const Expr& e) const;
  bool Implies(BinaryOp op, const Expr& x, const Expr& bound) const;

  std::vector<Expr> facts_;
};

}  // namespace tile_ir::cpu

#endif  // TARGETS_CPU_GUARD_FACTS_H_
