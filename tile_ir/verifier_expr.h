// Expression checks of the verifier: names visible, operand types that agree,
// constants that fit their types, intrinsic calls that match the registry.
#ifndef TILE_IR_VERIFIER_EXPR_H_
#define TILE_IR_VERIFIER_EXPR_H_

#include "absl/strings/string_view.h"
#include "tile_ir/expr.h"
#include "tile_ir/verifier_diagnostics.h"
#include "tile_ir/verifier_scope.h"

namespace tile_ir::verifier {

// Recursive passes (printer, mutators) must not overflow the stack, so deeper
// expressions are rejected; the check itself walks the tree without recursion.
inline constexpr int kMaxExprDepth = 10000;

// Checks every node of `expr` against `scope`, reporting problems at `site`.
// Returns false only when `expr` is null, reported as "missing <role>", so a
// caller can go on to check the root's type.
bool CheckExpr(const Expr& expr, absl::string_view role, const NameScope& scope, const Site& site,
               DiagnosticSink& sink);

// Reports "<role> must be an integer scalar, not <dtype>" unless it is one.
// `expr` must be non-null.
void ExpectIntegerScalar(const Expr& expr, absl::string_view role, const Site& site,
                         DiagnosticSink& sink);

// CheckExpr followed by ExpectIntegerScalar; returns whether expr is non-null.
bool CheckIntegerExpr(const Expr& expr, absl::string_view role, const NameScope& scope,
                      const Site& site, DiagnosticSink& sink);

}  // namespace tile_ir::verifier

#endif  // TILE_IR_VERIFIER_EXPR_H_
