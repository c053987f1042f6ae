// Pattern helpers for the simplifier's rules.
#include "passes/analysis/arith/rewrite_util.h"

#include <optional>

#include "passes/analysis/arith/effects.h"
#include "tile_ir/structural_equal.h"

namespace tile_ir::arith {

const Binary* AsBinary(const Expr& e, BinaryOp op) {
  const auto* binary = As<Binary>(e);
  return binary != nullptr && binary->op == op ? binary : nullptr;
}

bool SplitOffset(const Expr& e, Expr* base, int64_t* offset) {
  const auto* binary = As<Binary>(e);
  if (binary == nullptr) return false;
  std::optional<int64_t> c = AsConstInt(binary->b);
  if (!c) return false;
  if (binary->op == BinaryOp::kAdd) {
    *offset = *c;
  } else if (binary->op == BinaryOp::kSub && FitsIn(-static_cast<Wide>(*c), e->dtype())) {
    *offset = -*c;
  } else {
    return false;
  }
  *base = binary->a;
  return true;
}

void SplitScale(const Expr& e, Expr* base, int64_t* scale) {
  if (const Binary* mul = AsBinary(e, BinaryOp::kMul)) {
    if (std::optional<int64_t> c = AsConstInt(mul->b)) {
      *base = mul->a;
      *scale = *c;
      return;
    }
  }
  *base = e;
  *scale = 1;
}

Expr IntConst(DataType dtype, Wide value) {
  return IntImm::Make(dtype, static_cast<int64_t>(value));
}

bool SameValue(const Expr& a, const Expr& b) {
  if (a == b) return IsPure(a);
  return StructuralEqual(a, b) && IsPure(a);
}

}  // namespace tile_ir::arith
