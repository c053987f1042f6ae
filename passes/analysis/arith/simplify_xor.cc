// Integer rules for ^: the literal to the right, and x ^ 0 -> x.
#include <optional>

#include "passes/analysis/arith/expr_simplifier.h"
#include "passes/analysis/arith/rewrite_util.h"

namespace tile_ir::arith {

Expr ExprSimplifier::RewriteXor(const Expr& a, const Expr& b) {
  std::optional<int64_t> ca = AsConstInt(a);
  std::optional<int64_t> cb = AsConstInt(b);
  if (ca && !cb) return Build(BinaryOp::kXor, b, a);
  if (cb && *cb == 0) return a;
  return nullptr;
}

}  // namespace tile_ir::arith
