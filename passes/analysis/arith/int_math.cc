// Type ranges and exact evaluation of integer operators.
#include "passes/analysis/arith/int_math.h"

#include <algorithm>
#include <limits>

namespace tile_ir::arith {

int64_t TypeMin(DataType dtype) {
  switch (dtype.scalar()) {
    case ScalarType::kBool:
    case ScalarType::kU8: return 0;
    case ScalarType::kI4: return -8;
    case ScalarType::kI8: return std::numeric_limits<int8_t>::min();
    case ScalarType::kI16: return std::numeric_limits<int16_t>::min();
    case ScalarType::kI32: return std::numeric_limits<int32_t>::min();
    default: return std::numeric_limits<int64_t>::min();
  }
}

int64_t TypeMax(DataType dtype) {
  switch (dtype.scalar()) {
    case ScalarType::kBool: return 1;
    case ScalarType::kU8: return 255;
    case ScalarType::kI4: return 7;
    case ScalarType::kI8: return std::numeric_limits<int8_t>::max();
    case ScalarType::kI16: return std::numeric_limits<int16_t>::max();
    case ScalarType::kI32: return std::numeric_limits<int32_t>::max();
    default: return std::numeric_limits<int64_t>::max();
  }
}

bool FitsIn(Wide value, DataType dtype) {
  return value >= TypeMin(dtype) && value <= TypeMax(dtype);
}

std::optional<int64_t> EvalIntBinary(BinaryOp op, int64_t a_narrow, int64_t b_narrow,
                                     DataType dtype) {
  Wide a = a_narrow;
  Wide b = b_narrow;
  bool divides = op == BinaryOp::kDiv || op == BinaryOp::kMod || op == BinaryOp::kFloorDiv ||
                 op == BinaryOp::kFloorMod || op == BinaryOp::kCeilDiv;
  if (divides && b == 0) return std::nullopt;
  Wide result = 0;
  switch (op) {
    case BinaryOp::kAdd: result = a + b; break;
    case BinaryOp::kSub: result = a - b; break;
    case BinaryOp::kMul: result = a * b; break;
    case BinaryOp::kDiv: result = TruncDiv(a, b); break;
    case BinaryOp::kMod: result = TruncMod(a, b); break;
    case BinaryOp::kFloorDiv: result = FloorDiv(a, b); break;
    case BinaryOp::kFloorMod: result = FloorMod(a, b); break;
    case BinaryOp::kCeilDiv: result = CeilDiv(a, b); break;
    case BinaryOp::kMin: result = std::min(a, b); break;
    case BinaryOp::kMax: result = std::max(a, b); break;
    case BinaryOp::kXor: result = a ^ b; break;
    case BinaryOp::kEq: return a == b;
    case BinaryOp::kNe: return a != b;
    case BinaryOp::kLt: return a < b;
    case BinaryOp::kLe: return a <= b;
    case BinaryOp::kGt: return a > b;
    case BinaryOp::kGe: return a >= b;
    case BinaryOp::kAnd: return a != 0 && b != 0;
    case BinaryOp::kOr: return a != 0 || b != 0;
  }
  if (!FitsIn(result, dtype)) return std::nullopt;
  return static_cast<int64_t>(result);
}

}  // namespace tile_ir::arith
