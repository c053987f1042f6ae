// Structural equality of expressions (see structural_equal.h).
#include "tile_ir/structural_equal.h"

#include <cmath>
#include <vector>

#include "tile_ir/node_list.h"

namespace tile_ir {
namespace {

// Floats compare as the values they print as: -0.0 differs from 0.0, and
// every NaN equals every other NaN.
bool SameFloat(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

bool SameExprs(const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!StructuralEqual(a[i], b[i])) return false;
  }
  return true;
}

bool SameIntImm(const IntImm& a, const IntImm& b) { return a.value == b.value; }
bool SameFloatImm(const FloatImm& a, const FloatImm& b) { return SameFloat(a.value, b.value); }
bool SameVar(const Var& a, const Var& b) { return &a == &b; }
bool SameUnary(const Unary& a, const Unary& b) { return a.op == b.op && StructuralEqual(a.a, b.a); }
bool SameBinary(const Binary& a, const Binary& b) {
  return a.op == b.op && StructuralEqual(a.a, b.a) && StructuralEqual(a.b, b.b);
}
bool SameCast(const Cast& a, const Cast& b) { return StructuralEqual(a.value, b.value); }
bool SameSelect(const Select& a, const Select& b) {
  return StructuralEqual(a.cond, b.cond) && StructuralEqual(a.true_value, b.true_value) &&
         StructuralEqual(a.false_value, b.false_value);
}
bool SameBufferLoad(const BufferLoad& a, const BufferLoad& b) {
  return a.buffer == b.buffer && SameExprs(a.indices, b.indices);
}
bool SameCall(const Call& a, const Call& b) {
  return a.name == b.name && SameExprs(a.args, b.args);
}
bool SameRamp(const Ramp& a, const Ramp& b) {
  return a.lanes == b.lanes && StructuralEqual(a.base, b.base) &&
         StructuralEqual(a.stride, b.stride);
}
bool SameBroadcast(const Broadcast& a, const Broadcast& b) {
  return a.lanes == b.lanes && StructuralEqual(a.value, b.value);
}

}  // namespace

bool StructuralEqual(const Expr& a, const Expr& b) {
  if (a == b) return true;
  if (!a || !b || a->kind() != b->kind() || a->dtype() != b->dtype()) return false;
  switch (a->kind()) {
#define TILE_IR_SAME_NODE(Name) \
  case ExprKind::k##Name:       \
    return Same##Name(static_cast<const Name&>(*a), static_cast<const Name&>(*b));
    TILE_IR_FOR_EACH_EXPR(TILE_IR_SAME_NODE)
#undef TILE_IR_SAME_NODE
  }
  return false;
}

}  // namespace tile_ir
