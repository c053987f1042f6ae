// EvaluateInt follows the IR's integer semantics and names what it cannot do.
#include <gtest/gtest.h>

#include "runtime/kernel_args.h"
#include "tile_ir/expr.h"
#include "tile_ir/op_shorthand.h"

namespace tile_ir::runtime {
namespace {

int64_t Eval(const Expr& e, const absl::flat_hash_map<const Var*, int64_t>& values = {}) {
  absl::StatusOr<int64_t> v = EvaluateInt(e, values);
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : -999;
}

std::string EvalError(const Expr& e, const absl::flat_hash_map<const Var*, int64_t>& values = {}) {
  absl::StatusOr<int64_t> v = EvaluateInt(e, values);
  EXPECT_FALSE(v.ok());
  return v.ok() ? "" : std::string(v.status().message());
}

TEST(EvaluateIntTest, DivisionsRoundAsTheirNamesSay) {
  EXPECT_EQ(Eval(Op(BinaryOp::kDiv, Int(-7), Int(2))), -3);
  EXPECT_EQ(Eval(Op(BinaryOp::kMod, Int(-7), Int(2))), -1);
  EXPECT_EQ(Eval(Op(BinaryOp::kFloorDiv, Int(-7), Int(2))), -4);
  EXPECT_EQ(Eval(Op(BinaryOp::kFloorMod, Int(-7), Int(2))), 1);
  EXPECT_EQ(Eval(Op(BinaryOp::kCeilDiv, Int(7), Int(2))), 4);
  EXPECT_EQ(Eval(Op(BinaryOp::kCeilDiv, Int(-7), Int(2))), -3);
  EXPECT_EQ(Eval(Op(BinaryOp::kCeilDiv, Int(8), Int(2))), 4);
}

TEST(EvaluateIntTest, VariablesMinMaxXorComparisonsSelectAndCasts) {
  VarRef n = Var::Make("N");
  absl::flat_hash_map<const Var*, int64_t> values = {{n.get(), 10}};
  EXPECT_EQ(Eval(Op(BinaryOp::kMin, n, Int(4)), values), 4);
  EXPECT_EQ(Eval(Op(BinaryOp::kMax, n, Int(4)), values), 10);
  EXPECT_EQ(Eval(Op(BinaryOp::kLt, n, Int(4)), values), 0);
  EXPECT_EQ(Eval(Op(BinaryOp::kAnd, Op(BinaryOp::kGe, n, Int(4)), Bool(true)), values), 1);
  EXPECT_EQ(Eval(Select::Make(Op(BinaryOp::kEq, n, Int(10)), Int(1), Int(2)), values), 1);
  EXPECT_EQ(Eval(Unary::Make(UnaryOp::kNeg, n), values), -10);
  EXPECT_EQ(Eval(Cast::Make(kI64, Op(BinaryOp::kMul, n, Int(3))), values), 30);
  EXPECT_EQ(Eval(Cast::Make(kBool, n), values), 1);
  EXPECT_EQ(Eval(Op(BinaryOp::kXor, n, Int(12)), values), 6);
  EXPECT_EQ(Eval(Op(BinaryOp::kXor, Int(-1, kI64), Int(5, kI64))), -6);
}

TEST(EvaluateIntTest, Errors) {
  VarRef n = Var::Make("N");
  EXPECT_EQ(EvalError(Op(BinaryOp::kAdd, n, Int(1))), "variable 'N' has no value here");
  absl::flat_hash_map<const Var*, int64_t> values = {{n.get(), 0}};
  EXPECT_EQ(EvalError(Op(BinaryOp::kCeilDiv, Int(7), n), values),
            "division by zero in 'ceildiv(7, N)'");
  EXPECT_EQ(EvalError(Op(BinaryOp::kMul, Int(1 << 20), Int(1 << 20))),
            "'1048576 * 1048576' overflows its type i32");
  EXPECT_EQ(EvalError(Cast::Make(kI8, Int(300))), "'cast<i8>(300)' overflows its type i8");
  EXPECT_EQ(EvalError(Float(1.5)), "'1.5' is not an integer expression (it has type f32)");
  EXPECT_EQ(EvalError(Cast::Make(kI32, Float(1.5))),
            "'1.5' is not an integer expression (it has type f32)");
}

}  // namespace
}  // namespace tile_ir::runtime
