// Expressions: literals, variables, casts, selects and the vector forms,
// which a vector statement emits one lane at a time.
#include <string>

#include "absl/strings/str_cat.h"
#include "targets/c_source/c_types.h"
#include "targets/c_source/kernel_emitter.h"

namespace tile_ir::c_source {

CExpr KernelEmitter::EmitExpr(const Expr& expr) {
  if (!expr) return Fail("a missing expression");
  switch (expr->kind()) {
    case ExprKind::kIntImm:
      return IntLiteral(dialect_, As<IntImm>(expr)->value, expr->dtype().scalar());
    case ExprKind::kFloatImm:
      return FloatLiteral(dialect_, As<FloatImm>(expr)->value, expr->dtype().scalar());
    case ExprKind::kVar: return EmitVar(*As<Var>(expr));
    case ExprKind::kUnary: return EmitUnary(*As<Unary>(expr));
    case ExprKind::kBinary: return EmitBinary(*As<Binary>(expr));
    case ExprKind::kCast: {
      const Cast& cast = *As<Cast>(expr);
      return Convert(dialect_, EmitExpr(cast.value), cast.value->dtype().scalar(),
                     expr->dtype().scalar());
    }
    case ExprKind::kSelect: return EmitSelect(*As<Select>(expr));
    case ExprKind::kBufferLoad: return EmitLoad(*As<BufferLoad>(expr));
    case ExprKind::kCall: return EmitCall(*As<Call>(expr));
    case ExprKind::kRamp: return EmitRamp(*As<Ramp>(expr));
    case ExprKind::kBroadcast:
      // Every lane holds the scalar.
      return EmitExpr(As<Broadcast>(expr)->value);
  }
  return Fail("an unknown expression kind");
}

CExpr KernelEmitter::EmitVar(const Var& node) {
  const std::string* name = names_.Find(&node);
  if (name == nullptr) return Fail(absl::StrCat("variable '", node.name, "' is not declared"));
  if (!vector_lets_.contains(&node)) return Primary(*name);
  if (lane_.empty()) return Fail(absl::StrCat("vector '", node.name, "' is used as a scalar"));
  return Primary(absl::StrCat(*name, "[", lane_, "]"));
}

CExpr KernelEmitter::EmitSelect(const Select& node) {
  // C++'s conditional operator evaluates only the chosen operand, so a
  // guarded load never reads out of bounds.
  CExpr cond = EmitExpr(node.cond);
  CExpr on_true = EmitExpr(node.true_value);
  CExpr on_false = EmitExpr(node.false_value);
  // A condition other than a name or a call is parenthesized for the reader.
  return CExpr{absl::StrCat(Operand(cond, kPrecPrimary), " ? ", Operand(on_true, kPrecConditional),
                            " : ", Operand(on_false, kPrecConditional)),
               kPrecConditional};
}

CExpr KernelEmitter::EmitRamp(const Ramp& node) {
  if (lane_.empty()) return Fail("a ramp outside a vector statement");
  CExpr base = EmitExpr(node.base);
  std::optional<int64_t> stride = AsConstInt(node.stride);
  std::string step = lane_;
  if (stride != 1) {
    CExpr stride_text = EmitExpr(node.stride);
    step = absl::StrCat(lane_, " * ", Operand(stride_text, kPrecMultiplicative + 1));
  }
  // The lane is an int; an i64 ramp keeps its type through the base.
  if (AsConstInt(node.base) == 0 && node.base->dtype().scalar() == ScalarType::kI32) {
    return CExpr{step, stride == 1 ? kPrecPrimary : kPrecMultiplicative};
  }
  return CExpr{absl::StrCat(Operand(base, kPrecAdditive), " + ", step), kPrecAdditive};
}

}  // namespace tile_ir::c_source
