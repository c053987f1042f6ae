// Powers of two through sums, products, remainders, xors and lets: what alignment proofs of
// swizzled shared-memory accesses rely on.
#include "passes/analysis/divisibility.h"

#include <gtest/gtest.h>

#include "tile_ir/buffer.h"
#include "tile_ir/module.h"
#include "tile_ir/op_shorthand.h"
#include "tile_ir/stmt.h"

namespace tile_ir::passes {
namespace {

Expr Mul(Expr a, int64_t c) { return Op(BinaryOp::kMul, std::move(a), Int(c)); }
Expr Xor(Expr a, Expr b) { return Op(BinaryOp::kXor, std::move(a), std::move(b)); }
Expr Mod8(Expr a) { return Op(BinaryOp::kFloorMod, std::move(a), Int(8)); }

class DivisibilityTest : public ::testing::Test {
 protected:
  VarRef c_ = Var::Make("c");
  VarRef r_ = Var::Make("r");
  Divisibility divisibility_;
};

TEST_F(DivisibilityTest, ArithmeticAndRemainders) {
  EXPECT_EQ(divisibility_.Of(Int(48)), 16);
  EXPECT_EQ(divisibility_.Of(Op(BinaryOp::kAdd, Mul(c_, 8), Int(4))), 4);
  EXPECT_EQ(divisibility_.Of(Mul(Mul(c_, 4), 2)), 8);
  EXPECT_EQ(divisibility_.Of(Op(BinaryOp::kFloorMod, Mul(c_, 16), Int(8))), 8);
  EXPECT_EQ(divisibility_.Of(c_), 1);
}

TEST_F(DivisibilityTest, XorKeepsTheLowZeroBitsOfBothOperands) {
  // The 128-byte swizzle of 16-byte chunks: chunk c XOR row r % 8, in elements of 8.
  EXPECT_EQ(divisibility_.Of(Mul(Xor(c_, Mod8(r_)), 8)), 8);
  EXPECT_EQ(divisibility_.Of(Xor(Mul(c_, 8), Mul(Mod8(r_), 8))), 8);
  EXPECT_EQ(divisibility_.Of(Xor(Mul(c_, 16), Mul(r_, 4))), 4);
  EXPECT_EQ(divisibility_.Of(Xor(Mul(c_, 8), Int(0))), 8);
  EXPECT_EQ(divisibility_.Of(Xor(Mul(c_, 8), Int(1))), 1);
}

TEST_F(DivisibilityTest, SwizzledOffsetThroughALet) {
  VarRef col = Var::Make("col");
  Expr swizzled = Mul(Xor(c_, Mod8(r_)), 8);
  divisibility_.Visit(Seq::Make({Let::Make(col, swizzled), Evaluate::Make(col)}));
  EXPECT_EQ(divisibility_.Of(col), 8);
  Buffer tile = BufferNode::Make("A_s", kF16, {Int(8), Int(64)}, MemoryScope::kShared);
  EXPECT_EQ(divisibility_.OffsetOf(*tile, {r_, Op(BinaryOp::kAdd, col, Int(0))}), 8);
  EXPECT_EQ(divisibility_.OffsetOf(*tile, {r_, Op(BinaryOp::kAdd, col, Int(2))}), 2);
}

// What the C-source emitter relied on when it kept its own copy of these rules.
TEST_F(DivisibilityTest, SelectsRemaindersByAnyDivisorAndIntegerCasts) {
  EXPECT_EQ(divisibility_.Of(Select::Make(Op(BinaryOp::kLt, c_, r_), Mul(c_, 8), Int(4))), 4);
  EXPECT_EQ(divisibility_.Of(Op(BinaryOp::kMod, Mul(c_, 16), Int(12))), 4);
  EXPECT_EQ(divisibility_.Of(Op(BinaryOp::kFloorMod, Mul(c_, 16), Mul(r_, 8))), 8);
  EXPECT_EQ(divisibility_.Of(Op(BinaryOp::kMod, Mul(c_, 16), r_)), 1);
  EXPECT_EQ(divisibility_.Of(Cast::Make(kI64, Mul(c_, 8))), 8);
  EXPECT_EQ(divisibility_.Of(Cast::Make(kI32, Cast::Make(kI64, Mul(c_, 8)))), 8);
  EXPECT_EQ(divisibility_.Of(Cast::Make(kI32, Cast::Make(kF32, Mul(c_, 8)))), 1);
}

TEST_F(DivisibilityTest, LetsAddedOneByOne) {
  VarRef offset = Var::Make("offset");
  VarRef scale = Var::Make("scale", kF32);
  divisibility_.AddLet(*As<Let>(Let::Make(offset, Mul(c_, 32))));
  divisibility_.AddLet(*As<Let>(Let::Make(scale, Float(4.0))));
  EXPECT_EQ(divisibility_.Of(Op(BinaryOp::kAdd, offset, Int(16))), 16);
  EXPECT_EQ(divisibility_.Of(scale), 1);
  EXPECT_EQ(Divisibility::OfConstant(0), Divisibility::kMaxDivisor);
  EXPECT_EQ(Divisibility::OfConstant(-24), 8);
}

TEST_F(DivisibilityTest, RequirementsDivideTheirDimensions) {
  VarRef k = Var::Make("K");
  VarRef n = Var::Make("N");
  Expr eq0 = Op(BinaryOp::kEq, Op(BinaryOp::kMod, k, Int(24)), Int(0));
  Expr both = Op(BinaryOp::kAnd, Op(BinaryOp::kEq, Int(0), Op(BinaryOp::kFloorMod, n, Int(16))),
                 Op(BinaryOp::kEq, Op(BinaryOp::kMod, k, Int(3)), Int(1)));
  Kernel kernel = KernelNode::Make("k", {k, n}, {}, Launch{}, Seq::Make({}), SourceLoc{},
                                   {{eq0, SourceLoc{}}, {both, SourceLoc{}}});
  divisibility_.AddRequirements(*kernel);
  EXPECT_EQ(divisibility_.Of(k), 8);  // 24 = 8 * 3; K % 3 == 1 says nothing
  EXPECT_EQ(divisibility_.Of(n), 16);
  EXPECT_EQ(divisibility_.Of(Mul(k, 2)), 16);
  EXPECT_EQ(divisibility_.Of(c_), 1);
}

}  // namespace
}  // namespace tile_ir::passes
