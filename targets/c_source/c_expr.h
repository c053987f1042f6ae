// Emitted C++ expression text with the precedence of its outermost operator,
// so that the code generator parenthesizes only where C++ needs it.
#ifndef TARGETS_C_SOURCE_C_EXPR_H_
#define TARGETS_C_SOURCE_C_EXPR_H_

#include <string>

namespace tile_ir::c_source {

// C++ operator precedence, higher binds tighter.
inline constexpr int kPrecConditional = 3;
inline constexpr int kPrecOr = 4;
inline constexpr int kPrecAnd = 5;
inline constexpr int kPrecBitOr = 6;
inline constexpr int kPrecBitXor = 7;
inline constexpr int kPrecBitAnd = 8;
inline constexpr int kPrecEquality = 9;
inline constexpr int kPrecRelational = 10;
inline constexpr int kPrecShift = 11;
inline constexpr int kPrecAdditive = 12;
inline constexpr int kPrecMultiplicative = 13;
inline constexpr int kPrecUnary = 15;
// Names, literals, calls, subscripts and C++-style casts.
inline constexpr int kPrecPrimary = 16;

struct CExpr {
  std::string text;
  int prec = kPrecPrimary;
};

// The text of `e` as an operand that needs at least precedence `min_prec`.
inline std::string Operand(const CExpr& e, int min_prec) {
  return e.prec < min_prec ? "(" + e.text + ")" : e.text;
}

inline CExpr Primary(std::string text) { return CExpr{std::move(text), kPrecPrimary}; }

}  // namespace tile_ir::c_source

#endif  // TARGETS_C_SOURCE_C_EXPR_H_
