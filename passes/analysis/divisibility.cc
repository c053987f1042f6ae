// Powers of two dividing integer expressions, bottom up through lets.
#include "passes/analysis/divisibility.h"

#include <algorithm>
#include <optional>

namespace tile_ir::passes {
namespace {

int64_t LowestPowerOfTwo(int64_t value) {
  if (value == 0) return Divisibility::kMaxDivisor;
  uint64_t magnitude = value < 0 ? -static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  return std::min<int64_t>(static_cast<int64_t>(magnitude & (~magnitude + 1)),
                           Divisibility::kMaxDivisor);
}

}  // namespace

int64_t Divisibility::Of(const Expr& e) const {
  switch (e->kind()) {
    case ExprKind::kIntImm: return LowestPowerOfTwo(As<IntImm>(e)->value);
    case ExprKind::kVar: {
      auto it = lets_.find(As<Var>(e));
      return it == lets_.end() ? 1 : it->second;
    }
    case ExprKind::kRamp: return Of(As<Ramp>(e)->base);
    case ExprKind::kCast: return e->dtype().is_int() ? Of(As<Cast>(e)->value) : 1;
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
        case BinaryOp::kMod:
        case BinaryOp::kFloorMod: {
          // x % m keeps x's powers of two up to m's when m is a power of two.
          std::optional<int64_t> m = AsConstInt(node.b);
          return m && *m > 0 && LowestPowerOfTwo(*m) == *m ? std::min(a, *m) : 1;
        }
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

void Divisibility::VisitLet(const Let& node) {
  IRVisitor::VisitLet(node);
  if (node.var->dtype().is_int()) lets_[node.var.get()] = Of(node.value);
}

}  // namespace tile_ir::passes
