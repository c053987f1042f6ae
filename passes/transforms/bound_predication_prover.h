// Proves that indices stay inside [0, size) from the ranges of the variables
// they use, by interval analysis and by symbolic bounds.
#ifndef PASSES_TRANSFORMS_BOUND_PREDICATION_PROVER_H_
#define PASSES_TRANSFORMS_BOUND_PREDICATION_PROVER_H_

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "passes/analysis/arith/expr_simplifier.h"
#include "tile_ir/expr.h"

namespace tile_ir::passes {

// Facts accumulate for one kernel, where each variable is declared once.
class BoundProver {
 public:
  // A symbolic dimension: at least 1, otherwise unknown.
  void BindDim(const VarRef& dim);
  // A variable in [min, min + extent - 1] (a loop or block index).
  void BindRange(const VarRef& var, const Expr& min, const Expr& extent);
  // A let variable: it stands for its value.
  void BindLet(const VarRef& var, const Expr& value);

  // Whether 0 <= index, and whether index < size, always hold.
  bool ProveNonNegative(const Expr& index) { return NonNegative(index, 0); }
  bool ProveBelow(const Expr& index, const Expr& size);

 private:
  bool NonNegative(const Expr& e, int depth);
  // An expression bounding `e` from above (or below) in terms of values fixed
  // for the whole kernel (dimensions, scalars), or nullptr when none is found.
  Expr SymbolicBound(const Expr& e, bool upper, int depth);

  arith::ExprSimplifier simplifier_;
  // Symbolic [lowest, highest] of loop, block and let variables.
  absl::flat_hash_map<const Var*, std::pair<Expr, Expr>> ranges_;
};

}  // namespace tile_ir::passes

#endif  // PASSES_TRANSFORMS_BOUND_PREDICATION_PROVER_H_
