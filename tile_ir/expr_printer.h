// Prints expressions in the canonical text form: minimal parentheses by
// precedence, shortest round-trip floats, dtype suffixes on literals.
#ifndef TILE_IR_EXPR_PRINTER_H_
#define TILE_IR_EXPR_PRINTER_H_

#include <string>
#include <vector>

#include "tile_ir/expr.h"
#include "tile_ir/print_names.h"

namespace tile_ir {

// The shortest text that reads back to `value`, always with '.' or 'e' (or
// inf/nan), without a dtype suffix.
std::string FormatFloat(double value);

class ExprPrinter {
 public:
  ExprPrinter(const PrintNames* names, std::string* out) : names_(names), out_(out) {}

  void Print(const Expr& expr) { Print(expr, kLowestLevel); }
  // Comma-separated, as in argument and index lists.
  void PrintList(const std::vector<Expr>& exprs);

 private:
  static constexpr int kLowestLevel = 1;
  // Parenthesizes `expr` when its precedence level is below `min_level`.
  void Print(const Expr& expr, int min_level);
  void PrintNode(const Expr& expr);
  void PrintCall(std::string_view name, const std::vector<Expr>& args);
  void PrintLiteral(const Expr& expr);

  const PrintNames* names_;
  std::string* out_;
};

}  // namespace tile_ir

#endif  // TILE_IR_EXPR_PRINTER_H_
