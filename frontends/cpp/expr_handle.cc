#include "frontends/cpp/expr_handle.h"

#include <utility>
#include <vector>

#include "frontends/cpp/promotion.h"
#include "tile_ir/intrinsics.h"

namespace tile_ir::dsl {
namespace {

// Makes both operands one type: a weak literal takes the other side's type where it can;
// other mixes meet at TileLang's common type (promotion.h), each side converted by an
// explicit cast. A mix TileLang refuses (two float8 formats) is left for the verifier to
// report with the user's source line.
std::pair<Expr, Expr> Unify(const E& a, const E& b) {
  if (a.dtype() == b.dtype()) return {a.expr(), b.expr()};
  Expr x = a.weak() && !b.weak() ? typed(a, b.dtype()) : a.expr();
  Expr y = b.weak() && !a.weak() ? typed(b, a.dtype()) : b.expr();
  std::optional<DataType> common = CommonType(x->dtype(), y->dtype());
  if (!common) return {x, y};
  return {ConvertTo(x, *common), ConvertTo(y, *common)};
}

E MakeBinary(BinaryOp op, const E& a, const E& b) {
  auto [x, y] = Unify(a, b);
  E result(Binary::Make(op, std::move(x), std::move(y)));
  return result;
}

E MakeCall(const std::string& name, std::vector<E> args) {
  std::vector<Expr> exprs;
  for (const E& a : args) exprs.push_back(a.expr());
  const IntrinsicInfo* info = FindIntrinsic(name);
  // An unknown name still builds a node: the verifier reports it with the
  // user's source location, which is more useful than failing here.
  DataType dtype = info ? IntrinsicResultType(*info, exprs) : kVoid;
  return E(Call::Make(dtype, name, std::move(exprs)));
}

}  // namespace

// An integer literal becomes a float one next to a float expression; a float
// literal never silently becomes an integer.
Expr typed(const E& e, DataType dtype) {
  if (!e.weak() || e.dtype() == dtype) return e.expr();
  if (const auto* i = As<IntImm>(e.expr())) {
    if (dtype.is_float()) return Float(static_cast<double>(i->value), dtype);
    if (dtype.is_bool()) return Bool(i->value != 0);
    return Int(i->value, dtype);
  }
  if (const auto* f = As<FloatImm>(e.expr())) {
    if (dtype.is_float()) return Float(f->value, dtype);
  }
  return e.expr();
}

E operator+(E a, E b) { return MakeBinary(BinaryOp::kAdd, a, b); }
E operator-(E a, E b) { return MakeBinary(BinaryOp::kSub, a, b); }
E operator*(E a, E b) { return MakeBinary(BinaryOp::kMul, a, b); }
E operator/(E a, E b) { return MakeBinary(BinaryOp::kDiv, a, b); }
E operator%(E a, E b) { return MakeBinary(BinaryOp::kMod, a, b); }
E operator^(E a, E b) { return MakeBinary(BinaryOp::kXor, a, b); }
E operator&(E a, E b) { return MakeBinary(BinaryOp::kBitAnd, a, b); }
E operator|(E a, E b) { return MakeBinary(BinaryOp::kBitOr, a, b); }
E operator<<(E a, E b) { return MakeBinary(BinaryOp::kShl, a, b); }
E operator>>(E a, E b) { return MakeBinary(BinaryOp::kShr, a, b); }
E operator~(E a) {
  DataType type = a.dtype().element();
  if (type.scalar() == ScalarType::kU64) {
    // Every bit set is 2^64 - 1, past what a u64 IntImm holds (INT64_MAX): flip the bits as
    // an i64 instead, which reinterpret keeps exactly.
    DataType as_signed = DataType(ScalarType::kI64, a.dtype().lanes());
    return reinterpret(a.dtype(), ~reinterpret(as_signed, a));
  }
  Expr ones = Int(type.is_unsigned() ? (int64_t{1} << type.bits()) - 1 : -1, type);
  if (a.dtype().is_vector()) ones = Broadcast::Make(std::move(ones), a.dtype().lanes());
  return MakeBinary(BinaryOp::kXor, a, E(std::move(ones)));
}
E operator-(E a) {
  if (const auto* i = As<IntImm>(a.expr())) return E(Int(-i->value, a.dtype()));
  if (const auto* f = As<FloatImm>(a.expr())) return E(Float(-f->value, a.dtype()));
  return E(Unary::Make(UnaryOp::kNeg, a.expr()));
}
E operator==(E a, E b) { return MakeBinary(BinaryOp::kEq, a, b); }
E operator!=(E a, E b) { return MakeBinary(BinaryOp::kNe, a, b); }
E operator<(E a, E b) { return MakeBinary(BinaryOp::kLt, a, b); }
E operator<=(E a, E b) { return MakeBinary(BinaryOp::kLe, a, b); }
E operator>(E a, E b) { return MakeBinary(BinaryOp::kGt, a, b); }
E operator>=(E a, E b) { return MakeBinary(BinaryOp::kGe, a, b); }
E operator&&(E a, E b) { return MakeBinary(BinaryOp::kAnd, a, b); }
E operator||(E a, E b) { return MakeBinary(BinaryOp::kOr, a, b); }
E operator!(E a) { return E(Unary::Make(UnaryOp::kNot, a.expr())); }

E min(E a, E b) { return MakeBinary(BinaryOp::kMin, a, b); }
E max(E a, E b) { return MakeBinary(BinaryOp::kMax, a, b); }
E ceildiv(E a, E b) { return MakeBinary(BinaryOp::kCeilDiv, a, b); }
E floordiv(E a, E b) { return MakeBinary(BinaryOp::kFloorDiv, a, b); }
E floormod(E a, E b) { return MakeBinary(BinaryOp::kFloorMod, a, b); }

E select(E cond, E true_value, E false_value) {
  auto [t, f] = Unify(true_value, false_value);
  return E(Select::Make(cond.expr(), std::move(t), std::move(f)));
}

E cast(DataType dtype, E value) {
  if (value.dtype() == dtype) return E(value.expr());
  return E(Cast::Make(dtype, value.expr()));
}

E reinterpret(DataType dtype, E value) {
  return E(Call::Make(dtype, kReinterpret, {value.expr()}));
}

E exp(E x) { return MakeCall("exp", {x}); }
E exp2(E x) { return MakeCall("exp2", {x}); }
E exp2_ftz(E x) { return MakeCall("exp2_ftz", {x}); }
E log(E x) { return MakeCall("log", {x}); }
E log2(E x) { return MakeCall("log2", {x}); }
E sqrt(E x) { return MakeCall("sqrt", {x}); }
E rsqrt(E x) { return MakeCall("rsqrt", {x}); }
E tanh(E x) { return MakeCall("tanh", {x}); }
E erf(E x) { return MakeCall("erf", {x}); }
E abs(E x) { return MakeCall("abs", {x}); }
E pow(E x, E y) {
  auto [a, b] = Unify(x, y);
  return MakeCall("pow", {E(a), E(b)});
}
E fma(E x, E y, E z) {
  auto [a, b] = Unify(x, y);
  auto [a2, c] = Unify(E(a), z);
  return MakeCall("fma", {E(a2), E(b), E(c)});
}
E call(const std::string& name, std::vector<E> args) { return MakeCall(name, std::move(args)); }

E lit(double value, DataType dtype) {
  if (dtype.is_float()) return E(Float(value, dtype));
  if (dtype.is_bool()) return E(Bool(value != 0));
  return E(Int(static_cast<int64_t>(value), dtype));
}

}  // namespace tile_ir::dsl
