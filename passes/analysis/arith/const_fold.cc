// Folding rules per operand type; floats are folded only when provably exact.
#include "passes/analysis/arith/const_fold.h"

#include <cmath>
#include <optional>

#include "passes/analysis/arith/int_math.h"

namespace tile_ir::arith {
namespace {

bool IsFoldableFloat(DataType dtype) {
  return !dtype.is_vector() &&
         (dtype.scalar() == ScalarType::kF32 || dtype.scalar() == ScalarType::kF64);
}

bool IsScalarInt(DataType dtype) {
  return !dtype.is_vector() && (dtype.is_int() || dtype.is_bool());
}

// The literal's value as the dtype holds it: an f32 literal is a double
// rounded to float.
std::optional<double> FloatValue(const Expr& e) {
  const auto* imm = As<FloatImm>(e);
  if (imm == nullptr || !IsFoldableFloat(e->dtype())) return std::nullopt;
  if (e->dtype().scalar() == ScalarType::kF32) return static_cast<float>(imm->value);
  return imm->value;
}

bool Representable(double value, DataType dtype) {
  if (!std::isfinite(value)) return false;
  if (value != 0 && !std::isnormal(value)) return false;
  if (dtype.scalar() == ScalarType::kF32) {
    float narrow = static_cast<float>(value);
    return static_cast<double>(narrow) == value && (narrow == 0 || std::isnormal(narrow));
  }
  return true;
}

// The exact result of a op b if double arithmetic computes it without
// rounding: the rounding error of +, * and / is itself representable, so a
// zero error term proves exactness.
std::optional<double> ExactFloat(BinaryOp op, double a, double b) {
  double r = 0;
  bool exact = false;
  switch (op) {
    case BinaryOp::kAdd:
    case BinaryOp::kSub: {
      double addend = op == BinaryOp::kAdd ? b : -b;
      r = a + addend;
      double addend_part = r - a;
      exact = (a - (r - addend_part)) + (addend - addend_part) == 0;
      break;
    }
    case BinaryOp::kMul:
      r = a * b;
      exact = std::fma(a, b, -r) == 0;
      break;
    case BinaryOp::kDiv:
      if (b == 0) return std::nullopt;
      r = a / b;
      exact = std::fma(r, b, -a) == 0;
      break;
    default: return std::nullopt;
  }
  if (!exact) return std::nullopt;
  return r;
}

Expr FoldFloatBinary(BinaryOp op, const Expr& a, const Expr& b) {
  std::optional<double> x = FloatValue(a);
  std::optional<double> y = FloatValue(b);
  DataType dtype = a->dtype();
  if (!x || !y || b->dtype() != dtype || std::isnan(*x) || std::isnan(*y)) return nullptr;
  switch (op) {
    case BinaryOp::kEq: return Bool(*x == *y);
    case BinaryOp::kNe: return Bool(*x != *y);
    case BinaryOp::kLt: return Bool(*x < *y);
    case BinaryOp::kLe: return Bool(*x <= *y);
    case BinaryOp::kGt: return Bool(*x > *y);
    case BinaryOp::kGe: return Bool(*x >= *y);
    case BinaryOp::kMin:
    case BinaryOp::kMax:
      // min(-0.0, 0.0) differs between backends.
      if (*x == 0 && *y == 0) return nullptr;
      return op == BinaryOp::kMin ? (*x < *y ? a : b) : (*x > *y ? a : b);
    default: break;
  }
  if (!std::isfinite(*x) || !std::isfinite(*y)) return nullptr;
  std::optional<double> result = ExactFloat(op, *x, *y);
  if (!result || !Representable(*result, dtype)) return nullptr;
  return FloatImm::Make(dtype, *result);
}

}  // namespace

Expr FoldBinary(BinaryOp op, const Expr& a, const Expr& b) {
  if (As<FloatImm>(a) != nullptr) return FoldFloatBinary(op, a, b);
  const auto* x = As<IntImm>(a);
  const auto* y = As<IntImm>(b);
  if (x == nullptr || y == nullptr || !IsScalarInt(a->dtype()) || b->dtype() != a->dtype()) {
    return nullptr;
  }
  // Operators the verifier refuses on these operands stay for it to report.
  if (IsLogical(op) && !a->dtype().is_bool()) return nullptr;
  const bool bitwise = op == BinaryOp::kXor || op == BinaryOp::kBitAnd ||
                       op == BinaryOp::kBitOr || op == BinaryOp::kShl || op == BinaryOp::kShr;
  if (bitwise && a->dtype().is_bool()) return nullptr;
  std::optional<int64_t> result = EvalIntBinary(op, x->value, y->value, a->dtype());
  if (!result) return nullptr;
  if (IsComparison(op) || IsLogical(op)) return Bool(*result != 0);
  return IntImm::Make(a->dtype(), *result);
}

Expr FoldUnary(UnaryOp op, const Expr& a) {
  if (op == UnaryOp::kNot) {
    const auto* x = As<IntImm>(a);
    if (x == nullptr || a->dtype() != kBool) return nullptr;
    return Bool(x->value == 0);
  }
  if (std::optional<double> value = FloatValue(a)) return FloatImm::Make(a->dtype(), -*value);
  const auto* x = As<IntImm>(a);
  if (x == nullptr || !IsScalarInt(a->dtype()) || a->dtype().is_bool()) return nullptr;
  Wide negated = -static_cast<Wide>(x->value);
  if (!FitsIn(negated, a->dtype())) return nullptr;
  return IntImm::Make(a->dtype(), static_cast<int64_t>(negated));
}

Expr FoldCast(DataType to, const Expr& value) {
  DataType from = value->dtype();
  if (from.is_vector() || to.is_vector()) return nullptr;
  if (const auto* x = As<IntImm>(value)) {
    if (!IsScalarInt(from)) return nullptr;
    if (to.is_bool()) return Bool(x->value != 0);
    if (to.is_int()) return FitsIn(x->value, to) ? IntImm::Make(to, x->value) : nullptr;
    // Integers up to the significand's width convert exactly.
    int64_t exact_limit = to.scalar() == ScalarType::kF32 ? (int64_t{1} << 24) : (int64_t{1} << 53);
    if (!IsFoldableFloat(to) || x->value > exact_limit || x->value < -exact_limit) return nullptr;
    return FloatImm::Make(to, static_cast<double>(x->value));
  }
  std::optional<double> x = FloatValue(value);
  if (!x || !IsFoldableFloat(to)) return nullptr;
  if (to.scalar() == ScalarType::kF32 && static_cast<double>(static_cast<float>(*x)) != *x) {
    return nullptr;
  }
  return FloatImm::Make(to, *x);
}

}  // namespace tile_ir::arith
