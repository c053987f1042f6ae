// Expression simplification with facts about variables: constant folding,
// algebraic identities, constants reassociated to the right, and rewrites
// decided by interval analysis (floormod(i, 128) -> i when 0 <= i < 128).
#ifndef PASSES_ANALYSIS_ARITH_EXPR_SIMPLIFIER_H_
#define PASSES_ANALYSIS_ARITH_EXPR_SIMPLIFIER_H_

#include <utility>

#include "absl/container/flat_hash_map.h"
#include "passes/analysis/arith/interval.h"
#include "tile_ir/expr.h"
#include "tile_ir/mutator.h"

namespace tile_ir::arith {

// One simplifier serves one scope of facts, typically a kernel: variables are
// declared once per kernel, so a fact about one never needs retracting.
// Every rewrite is exact for the IR's semantics (see expr.h): nothing is
// folded that could divide by zero or overflow, floats only exactly, and an
// operand with side effects is never dropped. Signed overflow is undefined
// (as in the C, CUDA and LLVM code the targets emit: index arithmetic is
// assumed not to overflow), while u8 arithmetic wraps; interval analysis
// widens to the whole type on possible overflow, which is sound for both.
class ExprSimplifier : private IRMutator {
 public:
  // `var` only takes values in `range` (a loop or grid index, a let value).
  void BindRange(const VarRef& var, IntInterval range);
  // `var` equals `value` (a simplified, memory-free expression) everywhere it
  // is visible: Simplify replaces it.
  void BindValue(const VarRef& var, Expr value);

  // The simplified expression; `e` itself (the same pointer) when no rule applies.
  Expr Simplify(const Expr& e);
  // The values an integer or bool scalar expression can take under the bound facts.
  IntInterval Bound(const Expr& e);

 private:
  Expr MutateVar(const Var& node, const Expr& self) override;
  Expr MutateUnary(const Unary& node, const Expr& self) override;
  Expr MutateBinary(const Binary& node, const Expr& self) override;
  Expr MutateCast(const Cast& node, const Expr& self) override;
  Expr MutateSelect(const Select& node, const Expr& self) override;

  // Rules over already simplified operands. Each returns the rewritten
  // expression, or nullptr when no rule applies.
  Expr Rewrite(BinaryOp op, const Expr& a, const Expr& b);
  Expr RewriteFloat(BinaryOp op, const Expr& a, const Expr& b);
  Expr RewriteAdd(const Expr& a, const Expr& b);
  Expr RewriteSub(const Expr& a, const Expr& b);
  Expr RewriteMul(const Expr& a, const Expr& b);
  Expr RewriteDivMod(BinaryOp op, const Expr& a, const Expr& b);
  Expr RewriteFloorDivMod(bool is_mod, const Expr& a, int64_t divisor);
  Expr RewriteMinMax(BinaryOp op, const Expr& a, const Expr& b);
  Expr RewriteXor(const Expr& a, const Expr& b);
  Expr RewriteCompare(BinaryOp op, const Expr& a, const Expr& b);
  Expr RewriteLogic(BinaryOp op, const Expr& a, const Expr& b);
  Expr RewriteNot(const Expr& a);

  // op(a, b) after the rules: what rules use to build intermediate nodes.
  Expr Build(BinaryOp op, const Expr& a, const Expr& b);
  // x + offset in canonical form (x - 3 rather than x + -3).
  Expr AddOffset(const Expr& x, int64_t offset);
  // False when e is a +, - or * of u8 whose exact result may leave the type
  // and wrap; rules that reason about exact values (division) need true.
  bool CannotWrap(const Expr& e);
  // Interval analysis, memoized per Simplify or Bound call so each node is
  // analysed once however many rules ask.
  IntInterval BoundOf(const Expr& e);

  absl::flat_hash_map<const Var*, IntInterval> ranges_;
  absl::flat_hash_map<const Var*, Expr> values_;
  // Holds the node too, so that its address cannot be reused while cached.
  absl::flat_hash_map<const ExprNode*, std::pair<Expr, IntInterval>> bound_cache_;
};

// Without facts about its variables: constant folding (exact only: no
// division by zero, no overflow, floats only when exactly representable and
// never f16/bf16), identities (x + 0, x * 1, x * 0, x - x, x / 1, min(x, x),
// x == x, ...), constants gathered at the right ((x + 1) + 2 -> x + 3,
// (x * 2) * 4 -> x * 8, (x + 1) * 4 -> x * 4 + 4) and like terms collected.
Expr SimplifyExpr(const Expr& expr);

}  // namespace tile_ir::arith

#endif  // PASSES_ANALYSIS_ARITH_EXPR_SIMPLIFIER_H_
