// StructuralEqual: values and types compare by value, variables and buffers by identity.
#include "tile_ir/structural_equal.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tile_ir/buffer.h"
#include "tile_ir/expr.h"

namespace tile_ir {
namespace {

TEST(StructuralEqualTest, LiteralsCompareByValueAndType) {
  EXPECT_TRUE(StructuralEqual(Int(3), Int(3)));
  EXPECT_FALSE(StructuralEqual(Int(3), Int(4)));
  EXPECT_FALSE(StructuralEqual(Int(3), Int(3, kI64)));
  EXPECT_FALSE(StructuralEqual(Int(1), Bool(true)));
  EXPECT_TRUE(StructuralEqual(Float(0.5, kF16), Float(0.5, kF16)));
  EXPECT_FALSE(StructuralEqual(Float(0.5, kF16), Float(0.5)));
  EXPECT_FALSE(StructuralEqual(Int(0), Float(0.0)));
}

TEST(StructuralEqualTest, FloatsCompareAsTheyPrint) {
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(StructuralEqual(Float(nan), Float(-nan)));
  EXPECT_FALSE(StructuralEqual(Float(nan), Float(0.0)));
  EXPECT_FALSE(StructuralEqual(Float(0.0), Float(-0.0)));
  EXPECT_TRUE(StructuralEqual(Float(INFINITY), Float(INFINITY)));
}

TEST(StructuralEqualTest, VariablesCompareByIdentity) {
  VarRef i = Var::Make("i");
  VarRef other_i = Var::Make("i");
  EXPECT_TRUE(StructuralEqual(i, i));
  EXPECT_FALSE(StructuralEqual(i, other_i));
  Expr a = Binary::Make(BinaryOp::kAdd, i, Int(1));
  EXPECT_TRUE(StructuralEqual(a, Binary::Make(BinaryOp::kAdd, i, Int(1))));
  EXPECT_FALSE(StructuralEqual(a, Binary::Make(BinaryOp::kAdd, other_i, Int(1))));
  EXPECT_FALSE(StructuralEqual(a, Binary::Make(BinaryOp::kSub, i, Int(1))));
  EXPECT_FALSE(StructuralEqual(a, Binary::Make(BinaryOp::kAdd, Int(1), i)));
}

TEST(StructuralEqualTest, EveryNodeKindComparesItsFields) {
  VarRef i = Var::Make("i");
  Buffer a = BufferNode::Make("A", kF32, {Int(16)}, MemoryScope::kShared);
  Buffer same_name = BufferNode::Make("A", kF32, {Int(16)}, MemoryScope::kShared);
  EXPECT_TRUE(StructuralEqual(BufferLoad::Make(a, {i}), BufferLoad::Make(a, {i})));
  EXPECT_FALSE(StructuralEqual(BufferLoad::Make(a, {i}), BufferLoad::Make(same_name, {i})));
  EXPECT_FALSE(StructuralEqual(BufferLoad::Make(a, {i}), BufferLoad::Make(a, {Int(0)})));

  EXPECT_TRUE(StructuralEqual(Unary::Make(UnaryOp::kNeg, i), Unary::Make(UnaryOp::kNeg, i)));
  EXPECT_FALSE(StructuralEqual(Unary::Make(UnaryOp::kNeg, i), Unary::Make(UnaryOp::kNot, i)));
  EXPECT_TRUE(StructuralEqual(Cast::Make(kF16, i), Cast::Make(kF16, i)));
  EXPECT_FALSE(StructuralEqual(Cast::Make(kF16, i), Cast::Make(kBF16, i)));
  Expr cond = Binary::Make(BinaryOp::kLt, i, Int(4));
  EXPECT_TRUE(StructuralEqual(Select::Make(cond, i, Int(0)), Select::Make(cond, i, Int(0))));
  EXPECT_FALSE(StructuralEqual(Select::Make(cond, i, Int(0)), Select::Make(cond, Int(0), i)));
  EXPECT_TRUE(StructuralEqual(Call::Make(kF32, "exp2", {i}), Call::Make(kF32, "exp2", {i})));
  EXPECT_FALSE(StructuralEqual(Call::Make(kF32, "exp2", {i}), Call::Make(kF32, "exp", {i})));
  EXPECT_FALSE(StructuralEqual(Call::Make(kF32, "pow", {i, i}), Call::Make(kF32, "pow", {i})));
  EXPECT_TRUE(StructuralEqual(Ramp::Make(i, Int(1), 4), Ramp::Make(i, Int(1), 4)));
  EXPECT_FALSE(StructuralEqual(Ramp::Make(i, Int(1), 4), Ramp::Make(i, Int(1), 8)));
  EXPECT_FALSE(StructuralEqual(Ramp::Make(i, Int(1), 4), Ramp::Make(i, Int(2), 4)));
  EXPECT_TRUE(StructuralEqual(Broadcast::Make(i, 4), Broadcast::Make(i, 4)));
  EXPECT_FALSE(StructuralEqual(Broadcast::Make(i, 4), Broadcast::Make(i, 2)));
}

TEST(StructuralEqualTest, NullOnlyEqualsNull) {
  EXPECT_TRUE(StructuralEqual(nullptr, nullptr));
  EXPECT_FALSE(StructuralEqual(Int(0), nullptr));
  EXPECT_FALSE(StructuralEqual(nullptr, Int(0)));
}

}  // namespace
}  // namespace tile_ir
