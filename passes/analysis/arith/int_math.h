// Exact integer semantics of the IR's operators, shared by constant folding
// and interval analysis so both agree with expr.h on every rounding rule.
#ifndef PASSES_ANALYSIS_ARITH_INT_MATH_H_
#define PASSES_ANALYSIS_ARITH_INT_MATH_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>

#include "tile_ir/dtype.h"
#include "tile_ir/expr.h"

namespace tile_ir::arith {

// 128-bit intermediates hold any sum or product of two int64 values exactly.
using Wide = __int128;

// The values an integer or bool scalar of `dtype` can hold: bool is [0, 1],
// i4 [-8, 7], u8 [0, 255], ... Inline: layout enumeration checks every index it computes.
// u64 stops at INT64_MAX, the largest value an IntImm holds: folding stays exact below it, and
// ExprSimplifier draws no conclusions from u64 ranges, which int64 cannot bound.
inline int64_t TypeMin(DataType dtype) {
  switch (dtype.scalar()) {
    case ScalarType::kBool:
    case ScalarType::kU8:
    case ScalarType::kU16:
    case ScalarType::kU32:
    case ScalarType::kU64: return 0;
    case ScalarType::kI4: return -8;
    case ScalarType::kI8: return std::numeric_limits<int8_t>::min();
    case ScalarType::kI16: return std::numeric_limits<int16_t>::min();
    case ScalarType::kI32: return std::numeric_limits<int32_t>::min();
    default: return std::numeric_limits<int64_t>::min();
  }
}
inline int64_t TypeMax(DataType dtype) {
  switch (dtype.scalar()) {
    case ScalarType::kBool: return 1;
    case ScalarType::kU8: return 255;
    case ScalarType::kU16: return std::numeric_limits<uint16_t>::max();
    case ScalarType::kU32: return std::numeric_limits<uint32_t>::max();
    case ScalarType::kI4: return 7;
    case ScalarType::kI8: return std::numeric_limits<int8_t>::max();
    case ScalarType::kI16: return std::numeric_limits<int16_t>::max();
    case ScalarType::kI32: return std::numeric_limits<int32_t>::max();
    default: return std::numeric_limits<int64_t>::max();
  }
}
inline bool FitsIn(Wide value, DataType dtype) {
  return value >= TypeMin(dtype) && value <= TypeMax(dtype);
}

// Division helpers; b must not be 0. Truncating as in C, or rounding down or up. In 128 bits,
// where any int64 quotient fits (INT64_MIN / -1 included): interval bounds divide int64
// extremes.
inline Wide TruncDiv(Wide a, Wide b) { return a / b; }
inline Wide TruncMod(Wide a, Wide b) { return a % b; }
inline Wide FloorDiv(Wide a, Wide b) {
  Wide q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline Wide FloorMod(Wide a, Wide b) { return a - FloorDiv(a, b) * b; }
inline Wide CeilDiv(Wide a, Wide b) {
  Wide q = a / b;
  return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}

// The same in int64, several times cheaper than 128-bit division (layout enumeration divides
// at every element of a fragment); never for INT64_MIN / -1, whose quotient int64 cannot hold.
inline int64_t FloorDivInt64(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline int64_t FloorModInt64(int64_t a, int64_t b) {
  int64_t m = a % b;
  return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;
}
inline int64_t CeilDivInt64(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}

// `a << b` in the integer type `dtype`: b modulo the width, the result wrapped to the type
// (tile_ir/expr.h defines shifts so; they never overflow).
inline int64_t ShiftLeftInt(int64_t a, int64_t b, DataType dtype) {
  const int bits = dtype.bits();
  const uint64_t shifted = static_cast<uint64_t>(a) << (b & (bits - 1));
  if (bits >= 64) return static_cast<int64_t>(shifted);
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  uint64_t low = shifted & mask;
  if (!dtype.is_unsigned() && (low >> (bits - 1)) != 0) low |= ~mask;
  return static_cast<int64_t>(low);
}

// `a >> b` in the integer type `dtype`: b modulo the width; arithmetic, which is logical on the
// never-negative values the unsigned types hold here.
inline int64_t ShiftRightInt(int64_t a, int64_t b, DataType dtype) {
  return a >> (b & (dtype.bits() - 1));
}

// `a op b` for operands of the integer or bool type `dtype` (comparisons
// yield 0 or 1). nullopt for a division or modulo by zero and for a result
// that does not fit the result type: folding never guesses at overflow. No type is wider
// than int64, so a result that overflows int64 fits none; the one int64 quotient that
// overflows is INT64_MIN / -1. Inline: layout enumeration evaluates an index expression at
// every element of every fragment.
// This form writes the value to `result` and says whether there is one: evaluators that run
// it at every point avoid std::optional's round trip through memory.
inline bool EvalIntBinary(BinaryOp op, int64_t a, int64_t b, DataType dtype, int64_t& result) {
  switch (op) {
    case BinaryOp::kAdd:
      if (__builtin_add_overflow(a, b, &result)) return false;
      break;
    case BinaryOp::kSub:
      if (__builtin_sub_overflow(a, b, &result)) return false;
      break;
    case BinaryOp::kMul:
      if (__builtin_mul_overflow(a, b, &result)) return false;
      break;
    case BinaryOp::kDiv:
    case BinaryOp::kMod:
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod:
    case BinaryOp::kCeilDiv:
      if (b == 0) return false;
      if (a == std::numeric_limits<int64_t>::min() && b == -1) {
        // The remainders are 0; the quotients are 2^63, which no type holds.
        result = 0;
        return op == BinaryOp::kMod || op == BinaryOp::kFloorMod;
      }
      switch (op) {
        case BinaryOp::kDiv: result = a / b; break;
        case BinaryOp::kMod: result = a % b; break;
        case BinaryOp::kFloorDiv: result = FloorDivInt64(a, b); break;
        case BinaryOp::kFloorMod: result = FloorModInt64(a, b); break;
        default: result = CeilDivInt64(a, b); break;
      }
      break;
    case BinaryOp::kMin: result = std::min(a, b); break;
    case BinaryOp::kMax: result = std::max(a, b); break;
    case BinaryOp::kXor: result = a ^ b; break;
    case BinaryOp::kBitAnd: result = a & b; break;
    case BinaryOp::kBitOr: result = a | b; break;
    case BinaryOp::kShl: result = ShiftLeftInt(a, b, dtype); break;
    case BinaryOp::kShr: result = ShiftRightInt(a, b, dtype); break;
    case BinaryOp::kEq: result = a == b; return true;
    case BinaryOp::kNe: result = a != b; return true;
    case BinaryOp::kLt: result = a < b; return true;
    case BinaryOp::kLe: result = a <= b; return true;
    case BinaryOp::kGt: result = a > b; return true;
    case BinaryOp::kGe: result = a >= b; return true;
    case BinaryOp::kAnd: result = a != 0 && b != 0; return true;
    case BinaryOp::kOr: result = a != 0 || b != 0; return true;
  }
  return FitsIn(result, dtype);
}

inline std::optional<int64_t> EvalIntBinary(BinaryOp op, int64_t a, int64_t b, DataType dtype) {
  int64_t result = 0;
  if (!EvalIntBinary(op, a, b, dtype, result)) return std::nullopt;
  return result;
}

}  // namespace tile_ir::arith

#endif  // PASSES_ANALYSIS_ARITH_INT_MATH_H_
