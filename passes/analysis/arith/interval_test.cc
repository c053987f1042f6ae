#include "passes/analysis/arith/interval.h"

#include <limits>

#include "gtest/gtest.h"
#include "passes/analysis/arith/int_math.h"

namespace tile_ir::arith {
namespace {

constexpr IntInterval kIndex = {0, 127};

IntInterval Apply(BinaryOp op, IntInterval a, IntInterval b, DataType dtype = kI32) {
  return BinaryInterval(op, a, b, dtype);
}

TEST(IntMathTest, RoundsAsExprHSays) {
  EXPECT_EQ(TruncDiv(-7, 2), -3);
  EXPECT_EQ(TruncMod(-7, 2), -1);
  EXPECT_EQ(FloorDiv(-7, 2), -4);
  EXPECT_EQ(FloorMod(-7, 2), 1);
  EXPECT_EQ(FloorMod(7, -2), -1);
  EXPECT_EQ(CeilDiv(7, 2), 4);
  EXPECT_EQ(CeilDiv(-7, 2), -3);
  EXPECT_EQ(CeilDiv(8, 2), 4);
}

TEST(IntMathTest, EvalRefusesDivisionByZeroAndOverflow) {
  EXPECT_EQ(EvalIntBinary(BinaryOp::kFloorDiv, -7, 2, kI32), -4);
  EXPECT_EQ(EvalIntBinary(BinaryOp::kDiv, 1, 0, kI32), std::nullopt);
  EXPECT_EQ(EvalIntBinary(BinaryOp::kFloorMod, 1, 0, kI32), std::nullopt);
  EXPECT_EQ(EvalIntBinary(BinaryOp::kAdd, std::numeric_limits<int32_t>::max(), 1, kI32),
            std::nullopt);
  EXPECT_EQ(EvalIntBinary(BinaryOp::kAdd, std::numeric_limits<int32_t>::max(), 1, kI64),
            int64_t{1} << 31);
  EXPECT_EQ(EvalIntBinary(BinaryOp::kSub, 3, 5, kU8), std::nullopt);
  EXPECT_EQ(EvalIntBinary(BinaryOp::kMul, 4, 2, kI4), std::nullopt);
  EXPECT_EQ(EvalIntBinary(BinaryOp::kDiv, std::numeric_limits<int64_t>::min(), -1, kI64),
            std::nullopt);
  EXPECT_EQ(EvalIntBinary(BinaryOp::kLt, 3, 5, kI32), 1);
}

TEST(IntervalTest, ArithmeticUsesTheCorners) {
  EXPECT_EQ(Apply(BinaryOp::kAdd, kIndex, {1, 1}), (IntInterval{1, 128}));
  EXPECT_EQ(Apply(BinaryOp::kSub, kIndex, kIndex), (IntInterval{-127, 127}));
  EXPECT_EQ(Apply(BinaryOp::kMul, {-2, 3}, {-5, 4}), (IntInterval{-15, 12}));
  EXPECT_EQ(Apply(BinaryOp::kMin, {0, 10}, {5, 7}), (IntInterval{0, 7}));
  EXPECT_EQ(Apply(BinaryOp::kMax, {0, 10}, {5, 7}), (IntInterval{5, 10}));
  EXPECT_EQ(UnaryInterval(UnaryOp::kNeg, {-3, 5}, kI32), (IntInterval{-5, 3}));
}

TEST(IntervalTest, OverflowWidensToTheWholeType) {
  IntInterval big = {0, std::numeric_limits<int32_t>::max()};
  EXPECT_EQ(Apply(BinaryOp::kAdd, big, {1, 1}), IntInterval::Full(kI32));
  EXPECT_EQ(Apply(BinaryOp::kAdd, big, {1, 1}, kI64),
            (IntInterval{1, int64_t{std::numeric_limits<int32_t>::max()} + 1}));
  EXPECT_EQ(Apply(BinaryOp::kMul, IntInterval::Full(kI64), {2, 2}, kI64), IntInterval::Full(kI64));
  EXPECT_EQ(UnaryInterval(UnaryOp::kNeg, IntInterval::Full(kI8), kI8), IntInterval::Full(kI8));
  // INT64_MIN / -1 overflows int64: the bounds divide in 128 bits (this trapped once).
  EXPECT_EQ(Apply(BinaryOp::kFloorMod, IntInterval::Full(kI64), {-1, -1}, kI64),
            IntInterval::Point(0));
  EXPECT_EQ(Apply(BinaryOp::kFloorDiv, IntInterval::Full(kI64), {-1, -1}, kI64),
            IntInterval::Full(kI64));
  EXPECT_EQ(EvalIntBinary(BinaryOp::kFloorDiv, std::numeric_limits<int64_t>::min(), -1, kI64),
            std::nullopt);
  EXPECT_EQ(EvalIntBinary(BinaryOp::kMod, std::numeric_limits<int64_t>::min(), -1, kI64), 0);
}

TEST(IntervalTest, Division) {
  EXPECT_EQ(Apply(BinaryOp::kFloorDiv, kIndex, {128, 128}), IntInterval::Point(0));
  EXPECT_EQ(Apply(BinaryOp::kFloorDiv, {-1, 127}, {128, 128}), (IntInterval{-1, 0}));
  EXPECT_EQ(Apply(BinaryOp::kDiv, {-1, 127}, {128, 128}), IntInterval::Point(0));
  EXPECT_EQ(Apply(BinaryOp::kCeilDiv, {1, 128}, {128, 128}), IntInterval::Point(1));
  EXPECT_EQ(Apply(BinaryOp::kFloorDiv, {10, 20}, {-5, -2}), (IntInterval{-10, -2}));
  EXPECT_EQ(Apply(BinaryOp::kFloorDiv, {10, 20}, {0, 5}), (IntInterval{2, 20}));
  EXPECT_EQ(Apply(BinaryOp::kFloorDiv, {10, 20}, {-1, 5}), IntInterval::Full(kI32));
  EXPECT_EQ(Apply(BinaryOp::kDiv, {10, 20}, {0, 0}), IntInterval::Full(kI32));
}

TEST(IntervalTest, Modulo) {
  EXPECT_EQ(Apply(BinaryOp::kFloorMod, kIndex, {128, 128}), kIndex);
  EXPECT_EQ(Apply(BinaryOp::kFloorMod, {128, 200}, {128, 128}), (IntInterval{0, 72}));
  EXPECT_EQ(Apply(BinaryOp::kFloorMod, {100, 200}, {128, 128}), (IntInterval{0, 127}));
  EXPECT_EQ(Apply(BinaryOp::kFloorMod, {-100, 200}, {8, 16}), (IntInterval{0, 15}));
  EXPECT_EQ(Apply(BinaryOp::kFloorMod, {0, 5}, {8, 16}), (IntInterval{0, 5}));
  EXPECT_EQ(Apply(BinaryOp::kFloorMod, {0, 100}, {-8, -8}), (IntInterval{-7, 0}));
  EXPECT_EQ(Apply(BinaryOp::kMod, {-100, 3}, {8, 8}), (IntInterval{-7, 3}));
  EXPECT_EQ(Apply(BinaryOp::kMod, {-5, -1}, {-8, 8}), IntInterval::Full(kI32));
  EXPECT_EQ(Apply(BinaryOp::kMod, {-5, -1}, {-8, -8}), (IntInterval{-5, 0}));
}

TEST(IntMathTest, XorIsBitwise) {
  EXPECT_EQ(EvalIntBinary(BinaryOp::kXor, 12, 10, kI32), 6);
  EXPECT_EQ(EvalIntBinary(BinaryOp::kXor, -1, 0, kI32), -1);
  EXPECT_EQ(EvalIntBinary(BinaryOp::kXor, 255, 1, kU8), 254);
}

// Non-negative operands below 2^k stay below 2^k; a negative one can give anything.
TEST(IntervalTest, XorOfNonNegativeRangesStaysBelowTheNextPowerOfTwo) {
  EXPECT_EQ(Apply(BinaryOp::kXor, {0, 7}, {0, 7}), (IntInterval{0, 7}));
  EXPECT_EQ(Apply(BinaryOp::kXor, {0, 7}, {0, 8}), (IntInterval{0, 15}));
  EXPECT_EQ(Apply(BinaryOp::kXor, {4, 5}, {0, 0}), (IntInterval{0, 7}));
  EXPECT_EQ(Apply(BinaryOp::kXor, {0, 0}, {0, 0}), IntInterval::Point(0));
  EXPECT_EQ(Apply(BinaryOp::kXor, {12, 12}, {10, 10}), IntInterval::Point(6));
  EXPECT_EQ(Apply(BinaryOp::kXor, kIndex, {0, 1000}), (IntInterval{0, 1023}));
  EXPECT_EQ(Apply(BinaryOp::kXor, {0, 255}, {0, 255}, kU8), IntInterval::Full(kU8));
  constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(Apply(BinaryOp::kXor, {0, kMax64}, {1, 1}, kI64), (IntInterval{0, kMax64}));
  EXPECT_EQ(Apply(BinaryOp::kXor, {-1, 7}, {0, 7}), IntInterval::Full(kI32));
  EXPECT_EQ(Apply(BinaryOp::kXor, {0, 7}, {-3, -3}), IntInterval::Full(kI32));
  // The swizzled chunk of a 128-byte row: c ^ (r % 8) for c in [0, 7].
  EXPECT_EQ(Apply(BinaryOp::kXor, {0, 7}, Apply(BinaryOp::kFloorMod, {0, 1000}, {8, 8})),
            (IntInterval{0, 7}));
}

TEST(IntervalTest, ComparisonsDecideWhenRangesAllow) {
  EXPECT_EQ(Apply(BinaryOp::kLt, kIndex, {128, 128}), IntInterval::Point(1));
  EXPECT_EQ(Apply(BinaryOp::kLt, kIndex, {127, 127}), (IntInterval{0, 1}));
  EXPECT_EQ(Apply(BinaryOp::kGe, kIndex, {128, 128}), IntInterval::Point(0));
  EXPECT_EQ(Apply(BinaryOp::kLe, kIndex, {127, 127}), IntInterval::Point(1));
  EXPECT_EQ(Apply(BinaryOp::kGt, {5, 9}, {1, 4}), IntInterval::Point(1));
  EXPECT_EQ(Apply(BinaryOp::kEq, {3, 3}, {3, 3}), IntInterval::Point(1));
  EXPECT_EQ(Apply(BinaryOp::kEq, {0, 3}, {4, 9}), IntInterval::Point(0));
  EXPECT_EQ(Apply(BinaryOp::kNe, {0, 3}, {4, 9}), IntInterval::Point(1));
  EXPECT_EQ(Apply(BinaryOp::kAnd, {1, 1}, {0, 1}, kBool), (IntInterval{0, 1}));
  EXPECT_EQ(Apply(BinaryOp::kOr, {1, 1}, {0, 1}, kBool), IntInterval::Point(1));
  EXPECT_EQ(UnaryInterval(UnaryOp::kNot, {0, 0}, kBool), IntInterval::Point(1));
}

TEST(IntervalTest, Casts) {
  EXPECT_EQ(CastInterval(kIndex, kI8), (IntInterval{0, 127}));
  EXPECT_EQ(CastInterval({0, 128}, kI8), IntInterval::Full(kI8));
  EXPECT_EQ(CastInterval({1, 5}, kBool), IntInterval::Point(1));
  EXPECT_EQ(CastInterval({0, 5}, kBool), (IntInterval{0, 1}));
  EXPECT_EQ(IntInterval::Full(kU8), (IntInterval{0, 255}));
  EXPECT_EQ(IntInterval::Full(kI4), (IntInterval{-8, 7}));
}

}  // namespace
}  // namespace tile_ir::arith
