#include "passes/analysis/arith/expr_simplifier.h"

#include <limits>

#include "gtest/gtest.h"
#include "tile_ir/buffer.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/op_shorthand.h"
#include "tile_ir/printer.h"

namespace tile_ir::arith {
namespace {

Expr operator+(Expr a, Expr b) { return Binary::Make(BinaryOp::kAdd, a, b); }
Expr operator-(Expr a, Expr b) { return Binary::Make(BinaryOp::kSub, a, b); }
Expr operator*(Expr a, Expr b) { return Binary::Make(BinaryOp::kMul, a, b); }
Expr operator+(Expr a, int64_t b) { return a + Int(b, a->dtype()); }
Expr operator-(Expr a, int64_t b) { return a - Int(b, a->dtype()); }
Expr operator*(Expr a, int64_t b) { return a * Int(b, a->dtype()); }
Expr operator<(Expr a, Expr b) { return Binary::Make(BinaryOp::kLt, a, b); }
Expr Op(BinaryOp op, Expr a, int64_t b) { return Binary::Make(op, a, Int(b, a->dtype())); }

class ExprSimplifierTest : public ::testing::Test {
 protected:
  std::string Simplified(const Expr& e) { return Print(simplifier_.Simplify(e)); }

  // i in [0, 127], j in [0, 63]; n unknown.
  void SetUp() override {
    simplifier_.BindRange(i_, {0, 127});
    simplifier_.BindRange(j_, {0, 63});
  }

  ExprSimplifier simplifier_;
  VarRef i_ = Var::Make("i");
  VarRef j_ = Var::Make("j");
  VarRef n_ = Var::Make("n");
  VarRef b_ = Var::Make("b", kBool);
  Expr i = i_, j = j_, n = n_, b = b_;
};

TEST_F(ExprSimplifierTest, FoldsConstants) {
  EXPECT_EQ(Simplified((Int(2) + Int(3)) * Int(4)), "20");
  EXPECT_EQ(Simplified(Op(BinaryOp::kFloorDiv, Int(-7), 2)), "-4");
  EXPECT_EQ(Simplified(Op(BinaryOp::kDiv, Int(-7), 2)), "-3");
  EXPECT_EQ(Simplified(Op(BinaryOp::kDiv, Int(7), 0)), "7 / 0");
  EXPECT_EQ(Simplified(Float(1.5) * Float(2.0)), "3.0");
  EXPECT_EQ(Simplified(Op(BinaryOp::kDiv, Float(1.0), Float(3.0))), "1.0 / 3.0");
}

// u32 values are within int64 and analysed as such; u64 values reach 2^64 - 1, past the int64
// bounds of an interval, so nothing is concluded from a u64 range (x >> 63 may be 1), while
// u64 constants still fold exactly.
TEST_F(ExprSimplifierTest, UnsignedRangesAreExactOrNotUsed) {
  Expr w = Var::Make("w", kU32), x = Var::Make("x", kU64);
  EXPECT_EQ(Simplified(Op(BinaryOp::kShr, w, 31) < Int(2, kU32)), "true");
  EXPECT_EQ(Simplified(Op(BinaryOp::kShr, x, 63)), "x >> 63_u64");
  EXPECT_EQ(
      Simplified(Binary::Make(BinaryOp::kLe, x, Int(std::numeric_limits<int64_t>::max(), kU64))),
      "x <= 9223372036854775807_u64");
  EXPECT_EQ(Simplified(Cast::Make(kI64, x) < Int(0, kI64)), "cast<i64>(x) < 0_i64");
  EXPECT_EQ(Simplified(Int(2, kU64) * Int(3, kU64) + 1), "7_u64");
  // 2^62 * 2 is past INT64_MAX: left for the target, which wraps it.
  EXPECT_EQ(Simplified(Int(int64_t{1} << 62, kU64) * 2), "4611686018427387904_u64 * 2_u64");
}

TEST_F(ExprSimplifierTest, AppliesIdentities) {
  EXPECT_EQ(Simplified(n + 0), "n");
  EXPECT_EQ(Simplified(Int(0) + n), "n");
  EXPECT_EQ(Simplified(n - 0), "n");
  EXPECT_EQ(Simplified(n * 1), "n");
  EXPECT_EQ(Simplified(Int(1) * n), "n");
  EXPECT_EQ(Simplified(n * 0), "0");
  EXPECT_EQ(Simplified(n - n), "0");
  EXPECT_EQ(Simplified(Op(BinaryOp::kFloorDiv, n, 1)), "n");
  EXPECT_EQ(Simplified(Op(BinaryOp::kCeilDiv, n, 1)), "n");
  EXPECT_EQ(Simplified(Op(BinaryOp::kFloorMod, n, 1)), "0");
  EXPECT_EQ(Simplified(Op(BinaryOp::kMin, n, n)), "n");
  EXPECT_EQ(Simplified(Op(BinaryOp::kEq, n, n)), "true");
  EXPECT_EQ(Simplified(Op(BinaryOp::kLt, n, n)), "false");
}

TEST_F(ExprSimplifierTest, FloatIdentitiesKeepIeeeSemantics) {
  VarRef f = Var::Make("f", kF32);
  EXPECT_EQ(Simplified(Expr(f) * Float(1.0)), "f");
  EXPECT_EQ(Simplified(Expr(f) - Float(0.0)), "f");
  // f + 0.0 is not f for f = -0.0, and f * 0.0 is not 0.0 for infinities and NaN.
  EXPECT_EQ(Simplified(Expr(f) + Float(0.0)), "f + 0.0");
  EXPECT_EQ(Simplified(Expr(f) * Float(0.0)), "f * 0.0");
  EXPECT_EQ(Simplified(Expr(f) - Expr(f)), "f - f");
}

TEST_F(ExprSimplifierTest, GathersConstantsAtTheRight) {
  EXPECT_EQ(Simplified((n + 1) + 2), "n + 3");
  EXPECT_EQ(Simplified((n + 1) - 3), "n - 2");
  EXPECT_EQ(Simplified(Int(3) + n), "n + 3");
  EXPECT_EQ(Simplified(n + -3), "n - 3");
  EXPECT_EQ(Simplified((n * 2) * 4), "n * 8");
  EXPECT_EQ(Simplified((n + 1) * 4), "n * 4 + 4");
  EXPECT_EQ(Simplified((n + 1) + (i + 2)), "n + i + 3");
  EXPECT_EQ(Simplified((n + 1) - n), "1");
  EXPECT_EQ(Simplified(Int(10) - (n + 3)), "7 - n");
  EXPECT_EQ(Simplified((Int(10) - n) + 5), "15 - n");
  EXPECT_EQ(Simplified(n * 3 + n * 5), "n * 8");
  EXPECT_EQ(Simplified(n * 3 - n), "n * 2");
  EXPECT_EQ(Simplified((n + i) - i), "n");
}

TEST_F(ExprSimplifierTest, NeverFoldsIntoOverflow) {
  int64_t max = std::numeric_limits<int32_t>::max();
  EXPECT_EQ(Simplified(Int(max) + Int(1)), Print(Int(max) + Int(1)));
  EXPECT_EQ(Simplified((n + max) + 1), Print((n + max) + 1));
}

TEST_F(ExprSimplifierTest, UsesRangesForDivisionAndModulo) {
  EXPECT_EQ(Simplified(Op(BinaryOp::kFloorMod, i, 128)), "i");
  EXPECT_EQ(Simplified(Op(BinaryOp::kFloorDiv, i, 128)), "0");
  EXPECT_EQ(Simplified(Op(BinaryOp::kMod, i, 128)), "i");
  EXPECT_EQ(Simplified(Op(BinaryOp::kDiv, i, 128)), "0");
  EXPECT_EQ(Simplified(Op(BinaryOp::kCeilDiv, i + 1, 128)), "1");
  EXPECT_EQ(Simplified(Op(BinaryOp::kFloorMod, i + 128, 128)), "i");
  EXPECT_EQ(Simplified(Op(BinaryOp::kFloorDiv, i + 128, 128)), "1");
  EXPECT_EQ(Simplified(Op(BinaryOp::kFloorMod, i, 64)), "floormod(i, 64)");
  EXPECT_EQ(Simplified(Op(BinaryOp::kFloorDiv, n * 128 + i, 128)), "n");
  EXPECT_EQ(Simplified(Op(BinaryOp::kFloorMod, n * 128 + i, 128)), "i");
  EXPECT_EQ(Simplified(Op(BinaryOp::kFloorDiv, n * 256 + j, 128)), "n * 2");
  EXPECT_EQ(Simplified(Op(BinaryOp::kFloorDiv, n * 8, 4)), "n * 2");
  EXPECT_EQ(Simplified(Op(BinaryOp::kFloorMod, n * 8, 4)), "0");
  EXPECT_EQ(Simplified(Op(BinaryOp::kFloorDiv, Op(BinaryOp::kFloorDiv, n, 4), 8)),
            "floordiv(n, 32)");
  EXPECT_EQ(Simplified(Op(BinaryOp::kFloorMod, Op(BinaryOp::kFloorMod, n, 32), 8)),
            "floormod(n, 8)");
  // n may be negative: truncation and floor differ there, so nothing changes.
  EXPECT_EQ(Simplified(Op(BinaryOp::kDiv, n * 128 + i, 128)), "(n * 128 + i) / 128");
}

TEST_F(ExprSimplifierTest, UsesRangesForMinMaxAndComparisons) {
  EXPECT_EQ(Simplified(Op(BinaryOp::kMin, i, 127)), "i");
  EXPECT_EQ(Simplified(Op(BinaryOp::kMin, i, 100)), "min(i, 100)");
  EXPECT_EQ(Simplified(Op(BinaryOp::kMax, i, 0)), "i");
  EXPECT_EQ(Simplified(Op(BinaryOp::kMax, Int(200), i)), "200");
  EXPECT_EQ(Simplified(Op(BinaryOp::kMin, Op(BinaryOp::kMin, n, 8), 4)), "min(n, 4)");
  EXPECT_EQ(Simplified(Op(BinaryOp::kLt, i, 128)), "true");
  EXPECT_EQ(Simplified(Op(BinaryOp::kLt, i, 127)), "i < 127");
  EXPECT_EQ(Simplified(Op(BinaryOp::kGe, i, 128)), "false");
  EXPECT_EQ(Simplified(Op(BinaryOp::kLt, i + j, 191)), "true");
  EXPECT_EQ(Simplified(Op(BinaryOp::kLt, Int(4), n)), "n > 4");
  EXPECT_EQ(Simplified(Op(BinaryOp::kLt, i + 1, 100)), "i < 99");
  EXPECT_EQ(Simplified(Op(BinaryOp::kLt, n + 1, 100)), "n < 99");
  VarRef byte = Var::Make("byte", kU8);
  // u8 wraps: byte + 10 < 20 also holds for byte = 250.
  EXPECT_EQ(Simplified(Op(BinaryOp::kLt, Expr(byte) + 10, 20)), "byte + 10_u8 < 20_u8");
  EXPECT_EQ(Simplified(Op(BinaryOp::kFloorDiv, Expr(byte) * 4, 2)), "floordiv(byte * 4_u8, 2_u8)");
}

TEST_F(ExprSimplifierTest, Logic) {
  Expr lt = Op(BinaryOp::kLt, n, 4);
  EXPECT_EQ(Simplified(Op(BinaryOp::kAnd, Bool(true), b)), "b");
  EXPECT_EQ(Simplified(Op(BinaryOp::kAnd, b, Bool(false))), "false");
  EXPECT_EQ(Simplified(Op(BinaryOp::kOr, b, Bool(true))), "true");
  EXPECT_EQ(Simplified(Op(BinaryOp::kOr, Op(BinaryOp::kLt, i, 200), b)), "true");
  EXPECT_EQ(Simplified(Op(BinaryOp::kAnd, b, b)), "b");
  EXPECT_EQ(Simplified(Unary::Make(UnaryOp::kNot, lt)), "n >= 4");
  EXPECT_EQ(Simplified(Unary::Make(UnaryOp::kNot, Unary::Make(UnaryOp::kNot, b))), "b");
  EXPECT_EQ(Simplified(Op(BinaryOp::kEq, b, Bool(false))), "!b");
  EXPECT_EQ(Simplified(Op(BinaryOp::kNe, b, Bool(false))), "b");
}

TEST_F(ExprSimplifierTest, SelectCastAndSubstitution) {
  EXPECT_EQ(Simplified(Select::Make(Op(BinaryOp::kLt, i, 128), n, j)), "n");
  EXPECT_EQ(Simplified(Select::Make(b, n + 0, n)), "n");
  EXPECT_EQ(Simplified(Cast::Make(kI32, n)), "n");
  EXPECT_EQ(Simplified(Cast::Make(kI64, Int(3))), "3_i64");
  VarRef k = Var::Make("k");
  simplifier_.BindValue(k, Int(5));
  EXPECT_EQ(Simplified(Expr(k) * 2 + n), "n + 10");
}

TEST_F(ExprSimplifierTest, KeepsSideEffects) {
  IntrinsicInfo info;
  info.name = "expr_simplifier_test.counter";
  info.num_args = 0;
  info.result = IntrinsicInfo::ResultType::kFixed;
  info.fixed_result = kI32;
  info.pure = false;
  RegisterIntrinsic(info);
  Expr call = Call::Make(kI32, info.name, {});
  EXPECT_EQ(Simplified(call * 0), Print(call * 0));
  EXPECT_EQ(Simplified(call - call), Print(call - call));
  EXPECT_EQ(Simplified(call + 0), Print(call));
}

TEST_F(ExprSimplifierTest, ReturnsTheSameNodeWhenNothingChanges) {
  Expr e = Op(BinaryOp::kFloorMod, n * 4 + i, 64);
  EXPECT_EQ(simplifier_.Simplify(e), e);
  Expr once = simplifier_.Simplify((n + 1) * 4 + (i + 2) * 3);
  EXPECT_EQ(simplifier_.Simplify(once), once);
}

TEST_F(ExprSimplifierTest, XorWithZeroAndConstantOperands) {
  EXPECT_EQ(Simplified(Op(BinaryOp::kXor, n, 0)), "n");
  EXPECT_EQ(Simplified(Op(BinaryOp::kXor, Int(0), n)), "n");
  EXPECT_EQ(Simplified(Op(BinaryOp::kXor, Int(5), n)), "n ^ 5");
  EXPECT_EQ(Simplified(Op(BinaryOp::kXor, Int(12), Int(10))), "6");
  EXPECT_EQ(Simplified(Op(BinaryOp::kXor, n + 0, Int(3) - 3)), "n");
  Expr u = Var::Make("u", kU8);
  EXPECT_EQ(Simplified(Op(BinaryOp::kXor, u, Int(0, kU8))), "u");
  // The chunk of a swizzled row stays in [0, 7], so its floormod by 8 disappears.
  Expr chunk = Op(BinaryOp::kXor, Op(BinaryOp::kFloorDiv, j, 8), Op(BinaryOp::kFloorMod, i, 8));
  EXPECT_EQ(simplifier_.Bound(chunk), (IntInterval{0, 7}));
  EXPECT_EQ(Simplified(Op(BinaryOp::kFloorMod, chunk, 8)), "floordiv(j, 8) ^ floormod(i, 8)");
}

// Shifts and bitwise and/or are no divisions: x >> 1, x | 1 and x & 1 stay; shifts by 0 and
// or with 0 vanish; constants fold with the amount modulo the width; bounds follow.
TEST_F(ExprSimplifierTest, BitOperationsKeepTheirOperands) {
  EXPECT_EQ(Simplified(Op(BinaryOp::kShr, n, 1)), "n >> 1");
  EXPECT_EQ(Simplified(Op(BinaryOp::kShl, n, 1)), "n << 1");
  EXPECT_EQ(Simplified(Op(BinaryOp::kBitOr, n, 1)), "n | 1");
  EXPECT_EQ(Simplified(Op(BinaryOp::kBitAnd, n, 1)), "n & 1");
  EXPECT_EQ(Simplified(Op(BinaryOp::kShr, n, 0)), "n");
  EXPECT_EQ(Simplified(Op(BinaryOp::kBitOr, n, 0)), "n");
  EXPECT_EQ(Simplified(Op(BinaryOp::kShl, Int(3), Int(33))), "6");
  EXPECT_EQ(Simplified(Op(BinaryOp::kShr, Int(-8), Int(1))), "-4");
  EXPECT_EQ(Simplified(Op(BinaryOp::kShl, Int(1, kI8), Int(7, kI8))), "-128_i8");
  EXPECT_EQ(Simplified(Op(BinaryOp::kBitAnd, Int(12), Int(10))), "8");
  EXPECT_EQ(simplifier_.Bound(Op(BinaryOp::kBitAnd, i, 7)), (IntInterval{0, 7}));
  EXPECT_EQ(simplifier_.Bound(Op(BinaryOp::kShr, i, 2)), (IntInterval{0, 31}));
}

TEST_F(ExprSimplifierTest, BoundsFollowTheFacts) {
  EXPECT_EQ(simplifier_.Bound(i * 2 + j), (IntInterval{0, 317}));
  EXPECT_EQ(simplifier_.Bound(n), IntInterval::Full(kI32));
  EXPECT_EQ(simplifier_.Bound(Select::Make(b, i, j + 200)), (IntInterval{0, 263}));
}

TEST_F(ExprSimplifierTest, AnalysesEachNodeOnce) {
  // Every level asks for the range of the whole chain below it; without the
  // per-call cache this would take quadratic time.
  Expr deep = i;
  for (int k = 0; k < 3000; ++k) deep = Op(BinaryOp::kMin, deep + 1, 1000000);
  EXPECT_EQ(simplifier_.Bound(deep), (IntInterval{3000, 3127}));
  // Each min is decided by the range below it, and the offsets gather.
  EXPECT_EQ(Simplified(deep), "i + 3000");
}

}  // namespace
}  // namespace tile_ir::arith
