// Interval arithmetic for each operator, with exact 128-bit bounds.
#include "passes/analysis/arith/interval.h"

#include <algorithm>
#include <bit>
#include <initializer_list>

#include "passes/analysis/arith/int_math.h"

namespace tile_ir::arith {
namespace {

// The hull of `values`, or the whole type when it does not fit (wrap-around).
IntInterval Hull(std::initializer_list<Wide> values, DataType dtype) {
  Wide low = *std::min_element(values.begin(), values.end());
  Wide high = *std::max_element(values.begin(), values.end());
  if (!FitsIn(low, dtype) || !FitsIn(high, dtype)) return IntInterval::Full(dtype);
  return {static_cast<int64_t>(low), static_cast<int64_t>(high)};
}

IntInterval Decided(bool is_true, bool is_false) {
  if (is_true) return IntInterval::Point(1);
  if (is_false) return IntInterval::Point(0);
  return {0, 1};
}

// Quotients are monotone in each operand while the divisor keeps its sign, so
// the corners bound them. A divisor range touching 0 only matters away from 0
// (division by zero has no value to bound).
template <typename DivideFn>
IntInterval DivideInterval(IntInterval a, IntInterval b, DataType dtype, DivideFn divide) {
  if (b.min == 0) b.min = 1;
  if (b.max == 0) b.max = -1;
  if (b.min > b.max || (b.min < 0 && b.max > 0)) return IntInterval::Full(dtype);
  return Hull(
      {divide(a.min, b.min), divide(a.min, b.max), divide(a.max, b.min), divide(a.max, b.max)},
      dtype);
}

IntInterval FloorModInterval(IntInterval a, IntInterval b, DataType dtype) {
  if (b.is_point() && b.min != 0) {
    Wide quotient = FloorDiv(a.min, b.min);
    if (quotient == FloorDiv(a.max, b.min)) {
      Wide shift = quotient * b.min;
      return Hull({a.min - shift, a.max - shift}, dtype);
    }
  }
  if (b.min > 0) {
    if (a.min >= 0) return {0, std::min(a.max, b.max - 1)};
    return {0, b.max - 1};
  }
  if (b.max < 0) return {b.min + 1, 0};
  return IntInterval::Full(dtype);
}

IntInterval TruncModInterval(IntInterval a, IntInterval b, DataType dtype) {
  if (a.min >= 0 && b.min > 0) return FloorModInterval(a, b, dtype);
  if (b.min <= 0 && b.max >= 0) return IntInterval::Full(dtype);
  // |a % b| < |b| and the result takes a's sign.
  Wide largest = std::max(-static_cast<Wide>(b.min), static_cast<Wide>(b.max)) - 1;
  Wide low = a.min >= 0 ? 0 : std::max<Wide>(a.min, -largest);
  Wide high = a.max <= 0 ? 0 : std::min<Wide>(a.max, largest);
  return Hull({low, high}, dtype);
}

// Non-negative operands below 2^k XOR to a value below 2^k; a negative operand can give
// anything of the type.
IntInterval XorInterval(IntInterval a, IntInterval b, DataType dtype) {
  if (a.is_point() && b.is_point()) return IntInterval::Point(a.min ^ b.min);
  if (a.min < 0 || b.min < 0) return IntInterval::Full(dtype);
  uint64_t bound = std::bit_ceil(static_cast<uint64_t>(std::max(a.max, b.max)) + 1);
  return {0, static_cast<int64_t>(bound - 1)};
}

// Non-negative operands: an and is at most the smaller, an or below the next power of two of
// the larger and at least the larger.
IntInterval BitAndOrInterval(BinaryOp op, IntInterval a, IntInterval b, DataType dtype) {
  if (a.is_point() && b.is_point()) {
    return IntInterval::Point(op == BinaryOp::kBitAnd ? a.min & b.min : a.min | b.min);
  }
  if (a.min < 0 || b.min < 0) return IntInterval::Full(dtype);
  if (op == BinaryOp::kBitAnd) return {0, std::min(a.max, b.max)};
  uint64_t bound = std::bit_ceil(static_cast<uint64_t>(std::max(a.max, b.max)) + 1);
  return {std::max(a.min, b.min), static_cast<int64_t>(bound - 1)};
}

// A shift by a known amount below the width is monotonic in a (a left shift while it does not
// wrap, which Hull checks); any other amount can give anything of the type.
IntInterval ShiftInterval(BinaryOp op, IntInterval a, IntInterval b, DataType dtype) {
  if (!b.is_point() || b.min < 0 || b.min >= dtype.bits()) return IntInterval::Full(dtype);
  if (op == BinaryOp::kShr) return {a.min >> b.min, a.max >> b.min};
  if (dtype.bits() >= 64) return IntInterval::Full(dtype);
  const Wide scale = Wide{1} << b.min;
  return Hull({a.min * scale, a.max * scale}, dtype);
}

}  // namespace

IntInterval IntInterval::Full(DataType dtype) { return {TypeMin(dtype), TypeMax(dtype)}; }

IntInterval Union(IntInterval a, IntInterval b) {
  return {std::min(a.min, b.min), std::max(a.max, b.max)};
}

IntInterval BinaryInterval(BinaryOp op, IntInterval a, IntInterval b, DataType dtype) {
  Wide a0 = a.min, a1 = a.max, b0 = b.min, b1 = b.max;
  switch (op) {
    case BinaryOp::kAdd: return Hull({a0 + b0, a1 + b1}, dtype);
    case BinaryOp::kSub: return Hull({a0 - b1, a1 - b0}, dtype);
    case BinaryOp::kMul: return Hull({a0 * b0, a0 * b1, a1 * b0, a1 * b1}, dtype);
    case BinaryOp::kDiv: return DivideInterval(a, b, dtype, TruncDiv);
    case BinaryOp::kFloorDiv: return DivideInterval(a, b, dtype, FloorDiv);
    case BinaryOp::kCeilDiv: return DivideInterval(a, b, dtype, CeilDiv);
    case BinaryOp::kMod: return TruncModInterval(a, b, dtype);
    case BinaryOp::kFloorMod: return FloorModInterval(a, b, dtype);
    case BinaryOp::kMin: return {std::min(a.min, b.min), std::min(a.max, b.max)};
    case BinaryOp::kMax: return {std::max(a.min, b.min), std::max(a.max, b.max)};
    case BinaryOp::kEq:
      return Decided(a.is_point() && b.is_point() && a.min == b.min,
                     a.max < b.min || b.max < a.min);
    case BinaryOp::kNe:
      return Decided(a.max < b.min || b.max < a.min,
                     a.is_point() && b.is_point() && a.min == b.min);
    case BinaryOp::kLt: return Decided(a.max < b.min, a.min >= b.max);
    case BinaryOp::kLe: return Decided(a.max <= b.min, a.min > b.max);
    case BinaryOp::kGt: return Decided(a.min > b.max, a.max <= b.min);
    case BinaryOp::kGe: return Decided(a.min >= b.max, a.max < b.min);
    case BinaryOp::kAnd: return Decided(a.min > 0 && b.min > 0, a.max == 0 || b.max == 0);
    case BinaryOp::kOr: return Decided(a.min > 0 || b.min > 0, a.max == 0 && b.max == 0);
    case BinaryOp::kXor: return XorInterval(a, b, dtype);
    case BinaryOp::kBitAnd:
    case BinaryOp::kBitOr: return BitAndOrInterval(op, a, b, dtype);
    case BinaryOp::kShl:
    case BinaryOp::kShr: return ShiftInterval(op, a, b, dtype);
  }
  return IntInterval::Full(dtype);
}

IntInterval UnaryInterval(UnaryOp op, IntInterval a, DataType dtype) {
  if (op == UnaryOp::kNot) return Decided(a.max == 0, a.min > 0);
  return Hull({-static_cast<Wide>(a.max), -static_cast<Wide>(a.min)}, dtype);
}

IntInterval CastInterval(IntInterval a, DataType to) {
  if (to.is_bool()) return Decided(a.min > 0 || a.max < 0, a.min == 0 && a.max == 0);
  if (FitsIn(a.min, to) && FitsIn(a.max, to)) return a;
  return IntInterval::Full(to);
}

}  // namespace tile_ir::arith
