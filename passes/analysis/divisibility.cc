// Powers of two dividing integer expressions, bottom up through lets.
#include "passes/analysis/divisibility.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace tile_ir::passes {

int64_t Divisibility::OfConstant(int64_t value) {
  if (value == 0) return kMaxDivisor;
  uint64_t magnitude = value < 0 ? -static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  return std::min<int64_t>(static_cast<int64_t>(magnitude & (~magnitude + 1)), kMaxDivisor);
}

int64_t Divisibility::Of(const Expr& e) const {
  switch (e->kind()) {
    case ExprKind::kIntImm: return OfConstant(As<IntImm>(e)->value);
    case ExprKind::kVar: {
      auto it = lets_.find(As<Var>(e));
      return it == lets_.end() ? 1 : it->second;
    }
    case ExprKind::kRamp: return Of(As<Ramp>(e)->base);
    case ExprKind::kCast: {
      // Widening keeps the value and truncating its low bits: a power of two that divided it
      // divides the result (one at or beyond the new width divides the 0 that is left).
      const Expr& value = As<Cast>(e)->value;
      return e->dtype().is_int() && value->dtype().is_int() ? Of(value) : 1;
    }
    case ExprKind::kSelect: {
      const Select& node = *As<Select>(e);
      return std::min(Of(node.true_value), Of(node.false_value));
    }
    case ExprKind::kBinary: {
      const Binary& node = *As<Binary>(e);
      int64_t a = Of(node.a);
      int64_t b = Of(node.b);
      switch (node.op) {
        case BinaryOp::kAdd:
        case BinaryOp::kSub:
        case BinaryOp::kMin:
        case BinaryOp::kMax:
        // Low bits that are zero in both operands stay zero in their xor, so a swizzled
        // offset c * 8 ^ (r % 8) * 8 keeps 8-element chunks whole.
        case BinaryOp::kXor: return std::min(a, b);
        case BinaryOp::kMul: return std::min(a * b, kMaxDivisor);
        // x % m is x - q * m, for truncating and flooring division alike: what divides
        // both x and m divides it.
        case BinaryOp::kMod:
        case BinaryOp::kFloorMod: return std::min(a, b);
        default: return 1;
      }
    }
    default: return 1;
  }
}

int64_t Divisibility::OffsetOf(const BufferNode& buffer, const std::vector<Expr>& indices) const {
  int64_t divisor = kMaxDivisor;
  int64_t row_major_stride = 1;
  for (size_t d = indices.size(); d-- > 0;) {
    int64_t stride = buffer.strides.empty() ? row_major_stride : Of(buffer.strides[d]);
    divisor = std::min(divisor, std::min(Of(indices[d]) * stride, kMaxDivisor));
    if (buffer.strides.empty() && d < buffer.shape.size()) {
      row_major_stride = std::min(row_major_stride * Of(buffer.shape[d]), kMaxDivisor);
    }
  }
  return divisor;
}

void Divisibility::AddLet(const Let& let) {
  if (let.var->dtype().is_int()) lets_[let.var.get()] = Of(let.value);
}

void Divisibility::AddRequirements(const KernelNode& kernel) {
  auto learn = [&](const Expr& condition, auto& self) -> void {
    const Binary* node = As<Binary>(condition);
    if (node == nullptr) return;
    if (node->op == BinaryOp::kAnd) {
      self(node->a, self);
      self(node->b, self);
      return;
    }
    if (node->op != BinaryOp::kEq) return;
    for (const auto& [mod, zero] : {std::pair(node->a, node->b), std::pair(node->b, node->a)}) {
      const Binary* rem = As<Binary>(mod);
      if (AsConstInt(zero) != 0 || rem == nullptr ||
          (rem->op != BinaryOp::kMod && rem->op != BinaryOp::kFloorMod)) {
        continue;
      }
      const Var* var = As<Var>(rem->a);
      std::optional<int64_t> divisor = AsConstInt(rem->b);
      if (var == nullptr || !divisor || *divisor == 0 || !var->dtype().is_int()) continue;
      int64_t& known = lets_[var];
      known = std::max(known, OfConstant(*divisor));
    }
  };
  for (const ShapeRequirement& requirement : kernel.requirements) {
    learn(requirement.condition, learn);
  }
}

void Divisibility::VisitLet(const Let& node) {
  IRVisitor::VisitLet(node);
  AddLet(node);
}

}  // namespace tile_ir::passes
