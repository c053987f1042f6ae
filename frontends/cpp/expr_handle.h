// E: the expression handle of the C++ embedded API. It wraps a tile_ir::Expr
// and gives it C++ operators, so kernels read like index arithmetic:
//   E row = by * 128 + i;   E safe = select(row < M, x, 0.0f);
// C++ literals are "weak": next to a typed expression they take its type, so
// `x * 2.0` stays f16 when x is f16 and `i + 1` stays i64 when i is i64 (a float
// literal beside an integer is f32). Other mixes meet at TileLang's common type
// (promotion.h: f16 with f32 is f32, an integer with a float the float), each
// side converted by an explicit cast; stores and fills convert to the buffer's type.
#ifndef FRONTENDS_CPP_EXPR_HANDLE_H_
#define FRONTENDS_CPP_EXPR_HANDLE_H_

#include <cstdint>

#include "tile_ir/expr.h"

namespace tile_ir::dsl {

class E {
 public:
  E(int value) : expr_(Int(value)), weak_(true) {}
  E(int64_t value) : expr_(Int(value, kI64)), weak_(true) {}
  E(float value) : expr_(Float(value, kF32)), weak_(true) {}
  E(double value) : expr_(Float(value, kF32)), weak_(true) {}
  E(bool value) : expr_(Bool(value)), weak_(true) {}
  E(Expr expr) : expr_(std::move(expr)) {}
  E(VarRef var) : expr_(std::move(var)) {}

  const Expr& expr() const { return expr_; }
  operator const Expr&() const { return expr_; }
  DataType dtype() const { return expr_->dtype(); }
  // True for a C++ literal that has not been given a type by its context.
  bool weak() const { return weak_; }

 private:
  Expr expr_;
  bool weak_ = false;
};

E operator+(E a, E b);
E operator-(E a, E b);
E operator*(E a, E b);
E operator/(E a, E b);  // C semantics: integer division truncates
E operator%(E a, E b);
// Bitwise exclusive or of integers (C's precedence, below == and above &&); needs ir_version 2.
E operator^(E a, E b);
// Bitwise and, or and shifts of integers, with C's precedence; need ir_version 5. A shift takes
// the amount modulo the width; >> is arithmetic on signed types, logical on u8.
E operator&(E a, E b);
E operator|(E a, E b);
E operator<<(E a, E b);
E operator>>(E a, E b);
// Bitwise not of an integer: a ^ -1 (a ^ 255 on u8).
E operator~(E a);
E operator-(E a);
E operator==(E a, E b);
E operator!=(E a, E b);
E operator<(E a, E b);
E operator<=(E a, E b);
E operator>(E a, E b);
E operator>=(E a, E b);
E operator&&(E a, E b);
E operator||(E a, E b);
E operator!(E a);

E min(E a, E b);
E max(E a, E b);
E ceildiv(E a, E b);
E floordiv(E a, E b);
E floormod(E a, E b);
E select(E cond, E true_value, E false_value);
E cast(DataType dtype, E value);
// value's bits read as `dtype`, of the same width (ir_version 5).
E reinterpret(DataType dtype, E value);

// Element-wise math intrinsics (tile_ir/intrinsics.h).
E exp(E x);
E exp2(E x);
// 2^x where a result below the smallest normal number may be zero (one GPU instruction).
E exp2_ftz(E x);
E log(E x);
E log2(E x);
E sqrt(E x);
E rsqrt(E x);
E tanh(E x);
E erf(E x);
E abs(E x);
E pow(E x, E y);
E fma(E x, E y, E z);
// Any registered intrinsic by name (e.g. a target's).
E call(const std::string& name, std::vector<E> args);

// A literal of an explicit type: lit(0.5, kF16), lit(7, kI64).
E lit(double value, DataType dtype);
// e as an expression of `dtype` when e is a weak literal; otherwise e unchanged.
Expr typed(const E& e, DataType dtype);

}  // namespace tile_ir::dsl

#endif  // FRONTENDS_CPP_EXPR_HANDLE_H_
