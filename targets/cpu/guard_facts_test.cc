// Which clamps the facts of a guard make the identity.
#include "targets/cpu/guard_facts.h"

#include "gtest/gtest.h"
#include "tile_ir/op_shorthand.h"
#include "tile_ir/structural_equal.h"

namespace tile_ir::cpu {
namespace {

class GuardFactsTest : public ::testing::Test {
 protected:
  VarRef i = Var::Make("i");
  VarRef n = Var::Make("n");
  Expr n_minus_1 = Op(BinaryOp::kSub, n, Int(1));
  // What bound predication writes for A[i] when i is not proved in [0, n).
  Expr clamped = Op(BinaryOp::kMin, Op(BinaryOp::kMax, i, Int(0)), n_minus_1);
  Expr in_bounds = Op(BinaryOp::kAnd, Op(BinaryOp::kGe, i, Int(0)), Op(BinaryOp::kLt, i, n));

  Expr Unclamped(const GuardFacts& facts, const Expr& e) { return facts.Unclamped(*As<Binary>(e)); }
};

TEST_F(GuardFactsTest, TheGuardOfAClampedIndexDropsTheClamp) {
  GuardFacts facts;
  facts.Assume(in_bounds);
  Expr unclamped = Unclamped(facts, clamped);
  ASSERT_TRUE(unclamped);
  EXPECT_TRUE(StructuralEqual(unclamped, i));
}

TEST_F(GuardFactsTest, APartialGuardKeepsTheClampItDoesNotImply) {
  GuardFacts facts;
  facts.Assume(Op(BinaryOp::kLt, i, n));
  EXPECT_FALSE(Unclamped(facts, clamped));  // i >= 0 is not known
  EXPECT_TRUE(StructuralEqual(Unclamped(facts, Op(BinaryOp::kMin, i, n_minus_1)), i));
}

TEST_F(GuardFactsTest, FoldedLimitsAndOtherFormsMatch) {
  GuardFacts facts;
  facts.Assume(Op(BinaryOp::kAnd, Op(BinaryOp::kLt, i, Int(64)), Op(BinaryOp::kLe, n, Int(7))));
  EXPECT_TRUE(Unclamped(facts, Op(BinaryOp::kMin, i, Int(63))));
  EXPECT_TRUE(Unclamped(facts, Op(BinaryOp::kMin, Int(63), i)));
  EXPECT_TRUE(Unclamped(facts, Op(BinaryOp::kMin, n, Int(7))));
  EXPECT_FALSE(Unclamped(facts, Op(BinaryOp::kMin, i, Int(62))));
  EXPECT_FALSE(Unclamped(facts, Op(BinaryOp::kMax, i, Int(0))));
}

TEST_F(GuardFactsTest, ForgettingEndsTheFacts) {
  GuardFacts facts;
  size_t mark = facts.Assume(in_bounds);
  facts.Forget(mark);
  EXPECT_FALSE(Unclamped(facts, clamped));
}

TEST_F(GuardFactsTest, FloatMinimaAreNotClamps) {
  VarRef x = Var::Make("x", kF32);
  GuardFacts facts;
  facts.Assume(Op(BinaryOp::kLe, x, Float(1.0)));
  EXPECT_FALSE(Unclamped(facts, Op(BinaryOp::kMin, x, Float(1.0))));
}

}  // namespace
}  // namespace tile_ir::cpu
