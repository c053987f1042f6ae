// Host-side evaluation of integer expressions (shapes, strides, grid extents)
// with the IR's exact operator semantics, shared with constant folding.
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "passes/analysis/arith/int_math.h"
#include "runtime/kernel_args.h"
#include "tile_ir/printer.h"

namespace tile_ir::runtime {
namespace {

bool IsDivision(BinaryOp op) {
  return op == BinaryOp::kDiv || op == BinaryOp::kMod || op == BinaryOp::kFloorDiv ||
         op == BinaryOp::kFloorMod || op == BinaryOp::kCeilDiv;
}

absl::Status Overflow(const Expr& expr) {
  return absl::OutOfRangeError(
      absl::StrCat("'", Print(expr), "' overflows its type ", expr->dtype().ToString()));
}

}  // namespace

absl::StatusOr<int64_t> EvaluateInt(const Expr& expr,
                                    const absl::flat_hash_map<const Var*, int64_t>& values) {
  DataType dtype = expr->dtype();
  if (dtype.is_vector() || !(dtype.is_int() || dtype.is_bool())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", Print(expr), "' is not an integer expression (it has type ", dtype.ToString(), ")"));
  }
  switch (expr->kind()) {
    case ExprKind::kIntImm: return As<IntImm>(expr)->value;
    case ExprKind::kVar: {
      auto it = values.find(As<Var>(expr));
      if (it == values.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat("variable '", As<Var>(expr)->name, "' has no value here"));
      }
      return it->second;
    }
    case ExprKind::kUnary: {
      const Unary* unary = As<Unary>(expr);
      absl::StatusOr<int64_t> a = EvaluateInt(unary->a, values);
      if (!a.ok()) return a.status();
      if (unary->op == UnaryOp::kNot) return *a == 0 ? 1 : 0;
      std::optional<int64_t> negated = arith::EvalIntBinary(BinaryOp::kSub, 0, *a, dtype);
      if (!negated) return Overflow(expr);
      return *negated;
    }
    case ExprKind::kBinary: {
      const Binary* binary = As<Binary>(expr);
      absl::StatusOr<int64_t> a = EvaluateInt(binary->a, values);
      if (!a.ok()) return a.status();
      absl::StatusOr<int64_t> b = EvaluateInt(binary->b, values);
      if (!b.ok()) return b.status();
      if (IsDivision(binary->op) && *b == 0) {
        return absl::InvalidArgumentError(absl::StrCat("division by zero in '", Print(expr), "'"));
      }
      std::optional<int64_t> result = arith::EvalIntBinary(binary->op, *a, *b, binary->a->dtype());
      if (!result) return Overflow(expr);
      return *result;
    }
    case ExprKind::kCast: {
      absl::StatusOr<int64_t> value = EvaluateInt(As<Cast>(expr)->value, values);
      if (!value.ok()) return value.status();
      if (dtype.is_bool()) return *value != 0 ? 1 : 0;
      if (!arith::FitsIn(*value, dtype)) return Overflow(expr);
      return *value;
    }
    case ExprKind::kSelect: {
      const Select* select = As<Select>(expr);
      absl::StatusOr<int64_t> cond = EvaluateInt(select->cond, values);
      if (!cond.ok()) return cond.status();
      return EvaluateInt(*cond != 0 ? select->true_value : select->false_value, values);
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("'", Print(expr),
                       "' cannot be evaluated on the host: only integer arithmetic over "
                       "dimensions and scalar parameters can"));
  }
}

}  // namespace tile_ir::runtime
