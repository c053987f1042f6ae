#include "passes/analysis/int_eval.h"

#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tile_ir/op_shorthand.h"

namespace tile_ir::passes {
namespace {

TEST(IntEvalTest, EvaluatesIntegerExpressions) {
  VarRef i = Var::Make("i");
  IntEnv env = {{i.get(), 7}};
  EXPECT_EQ(EvaluateInt(Op(BinaryOp::kFloorMod, Op(BinaryOp::kSub, Int(0), i), Int(4)), env), 1);
  EXPECT_EQ(EvaluateInt(Op(BinaryOp::kDiv, i, Int(2)), env), 3);
  EXPECT_EQ(EvaluateInt(Select::Make(Op(BinaryOp::kLt, i, Int(3)), Int(1), Int(2)), env), 2);
  EXPECT_EQ(EvaluateInt(Cast::Make(kI64, i), env), 7);
  EXPECT_EQ(EvaluateInt(Op(BinaryOp::kDiv, i, Int(0)), env), std::nullopt);
  EXPECT_EQ(EvaluateInt(Var::Make("unbound"), env), std::nullopt);
  EXPECT_EQ(EvaluateInt(Float(1.0), env), std::nullopt);
}

TEST(IntEvalTest, ProgramReadsSlotsAndBoundVariables) {
  VarRef i = Var::Make("i");
  VarRef j = Var::Make("j");
  VarRef n = Var::Make("n");
  const Var* slots[] = {i.get(), j.get()};
  IntProgram program(Op(BinaryOp::kAdd, Op(BinaryOp::kMul, i, n), j), slots, {{n.get(), 10}});
  EXPECT_EQ(program.Run({3, 4}), 34);
  EXPECT_EQ(program.Run({-1, 0}), -10);
  // Unbound at compile time: fails only where it is evaluated.
  VarRef free = Var::Make("free");
  IntProgram guarded(Select::Make(Op(BinaryOp::kLt, i, Int(0)), free, j), slots);
  EXPECT_EQ(guarded.Run({1, 5}), 5);
  EXPECT_EQ(guarded.Run({-1, 5}), std::nullopt);
}

TEST(IntEvalTest, SelectSkipsTheSideItDoesNotPick) {
  VarRef i = Var::Make("i");
  const Var* slots[] = {i.get()};
  // i == 0 ? 7 : 100 / i: the division by zero is never evaluated.
  Expr e = Select::Make(Op(BinaryOp::kEq, i, Int(0)), Int(7), Op(BinaryOp::kDiv, Int(100), i));
  IntProgram program(e, slots);
  EXPECT_EQ(program.Run({0}), 7);
  EXPECT_EQ(program.Run({3}), 33);
  EXPECT_EQ(program.Run({-3}), -33);
}

TEST(IntEvalTest, ProgramFailsWhereTheWalkFails) {
  VarRef i = Var::Make("i");
  const Var* slots[] = {i.get()};
  EXPECT_EQ(IntProgram(Op(BinaryOp::kMod, Int(5), i), slots).Run({0}), std::nullopt);
  EXPECT_EQ(IntProgram(Float(1.0), slots).Run({0}), std::nullopt);
  // i32 overflow and a narrowing cast that does not fit.
  EXPECT_EQ(IntProgram(Op(BinaryOp::kMul, i, Int(1 << 20)), slots).Run({1 << 12}), std::nullopt);
  EXPECT_EQ(IntProgram(Cast::Make(kI8, i), slots).Run({200}), std::nullopt);
  EXPECT_EQ(IntProgram(Cast::Make(kI8, i), slots).Run({-100}), -100);
  EXPECT_EQ(IntProgram(Cast::Make(kBool, i), slots).Run({-100}), 1);
}

TEST(IntEvalTest, PowerOfTwoDivisorsRoundAsTheOperatorSays) {
  VarRef i = Var::Make("i");
  const Var* slots[] = {i.get()};
  auto run = [&](BinaryOp op, int64_t divisor, int64_t value) {
    return IntProgram(Op(op, i, Int(divisor)), slots).Run({value});
  };
  EXPECT_EQ(run(BinaryOp::kFloorDiv, 4, -7), -2);
  EXPECT_EQ(run(BinaryOp::kFloorMod, 4, -7), 1);
  EXPECT_EQ(run(BinaryOp::kDiv, 4, -7), -1);
  EXPECT_EQ(run(BinaryOp::kMod, 4, -7), -3);
  EXPECT_EQ(run(BinaryOp::kDiv, 4, -8), -2);
  EXPECT_EQ(run(BinaryOp::kMod, 4, -8), 0);
  EXPECT_EQ(run(BinaryOp::kFloorDiv, 1, -7), -7);
  EXPECT_EQ(run(BinaryOp::kMod, 1, 5), 0);
  // Negative divisors take the general path.
  EXPECT_EQ(run(BinaryOp::kFloorDiv, -4, 7), -2);
}

// Random expressions over two variables, compiled and walked, agree at every point,
// failures included: the program is a faster EvaluateInt, never a different one.
class RandomExpr {
 public:
  // Over `vars` of `type`, with constants from `constants`.
  RandomExpr(uint32_t seed, std::vector<VarRef> vars, DataType type, std::vector<int64_t> constants)
      : rng_(seed), vars_(std::move(vars)), type_(type), constants_(std::move(constants)) {}

  Expr Integer(int depth) {
    int pick = depth <= 0 ? Pick(3) : Pick(11);
    switch (pick) {
      case 0: return Int(constants_[Pick(static_cast<int>(constants_.size()))], type_);
      case 1:
      case 2: return vars_[Pick(static_cast<int>(vars_.size()))];
      case 3: return Unary::Make(UnaryOp::kNeg, Integer(depth - 1));
      case 4: return Cast::Make(type_, Cast::Make(Pick(2) ? kI8 : kI32, Integer(depth - 1)));
      case 5: return Cast::Make(type_, Boolean(depth - 1));
      case 6: return Select::Make(Boolean(depth - 1), Integer(depth - 1), Integer(depth - 1));
      default: {
        static constexpr BinaryOp kOps[] = {
            BinaryOp::kAdd, BinaryOp::kSub,      BinaryOp::kMul,      BinaryOp::kDiv,
            BinaryOp::kMod, BinaryOp::kFloorDiv, BinaryOp::kFloorMod, BinaryOp::kCeilDiv,
            BinaryOp::kMin, BinaryOp::kMax,      BinaryOp::kXor};
        return Op(kOps[Pick(11)], Integer(depth - 1), Integer(depth - 1));
      }
    }
  }

  Expr Boolean(int depth) {
    static constexpr BinaryOp kCompare[] = {BinaryOp::kEq, BinaryOp::kNe, BinaryOp::kLt,
                                            BinaryOp::kLe, BinaryOp::kGt, BinaryOp::kGe};
    switch (depth <= 0 ? 0 : Pick(4)) {
      case 0: return Op(kCompare[Pick(6)], Integer(depth - 1), Integer(depth - 1));
      case 1: return Unary::Make(UnaryOp::kNot, Boolean(depth - 1));
      case 2:
        return Op(Pick(2) ? BinaryOp::kAnd : BinaryOp::kOr, Boolean(depth - 1), Boolean(depth - 1));
      default: return Cast::Make(kBool, Integer(depth - 1));
    }
  }

 private:
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  std::mt19937 rng_;
  std::vector<VarRef> vars_;
  DataType type_;
  std::vector<int64_t> constants_;
};

TEST(IntEvalTest, ProgramAgreesWithTheWalkOnRandomExpressions) {
  VarRef i = Var::Make("i");
  VarRef j = Var::Make("j");
  VarRef n = Var::Make("n");
  const Var* slots[] = {i.get(), j.get()};
  const IntEnv bound = {{n.get(), 1 << 30}};
  std::vector<int64_t> small;
  for (int64_t c = -9; c <= 9; ++c) small.push_back(c);
  RandomExpr random(20261205, {i, j, n}, kI32, small);
  int evaluable = 0;
  for (int trial = 0; trial < 400; ++trial) {
    Expr e = random.Integer(5);
    IntProgram program(e, slots, bound);
    for (int64_t vi = -6; vi <= 6; vi += 3) {
      for (int64_t vj = -5; vj <= 5; vj += 2) {
        IntEnv env = bound;
        env[i.get()] = vi;
        env[j.get()] = vj;
        std::optional<int64_t> want = EvaluateInt(e, env);
        ASSERT_EQ(program.Run({vi, vj}), want)
            << "trial " << trial << " at i=" << vi << ", j=" << vj;
        evaluable += want.has_value();
      }
    }
  }
  // Both outcomes are exercised, not just failures.
  EXPECT_GT(evaluable, 400 * 30 / 4);
}

// The same over i64 at the type's extremes, where int64 arithmetic overflows and INT64_MIN / -1
// has no quotient, against a walk whose arithmetic the interval tests check in 128 bits.
TEST(IntEvalTest, ProgramAgreesWithTheWalkAtInt64Extremes) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const std::vector<int64_t> extremes = {
      kMin, kMin + 1, -(int64_t{1} << 32), -(1 << 30), -2,  -1, 0, 1, 2,
      4,    1 << 30,  int64_t{1} << 32,    kMax - 1,   kMax};
  VarRef i = Var::Make("i", kI64);
  VarRef j = Var::Make("j", kI64);
  const Var* slots[] = {i.get(), j.get()};
  RandomExpr random(4242, {i, j}, kI64, extremes);
  int evaluable = 0;
  for (int trial = 0; trial < 400; ++trial) {
    Expr e = random.Integer(4);
    IntProgram program(e, slots);
    for (int64_t vi : extremes) {
      for (int64_t vj : {kMin, int64_t{-1}, int64_t{0}, int64_t{3}, kMax}) {
        std::optional<int64_t> want = EvaluateInt(e, {{i.get(), vi}, {j.get(), vj}});
        ASSERT_EQ(program.Run({vi, vj}), want)
            << "trial " << trial << " at i=" << vi << ", j=" << vj;
        evaluable += want.has_value();
      }
    }
  }
  EXPECT_GT(evaluable, 400 * 14 * 5 / 10);
}

}  // namespace
}  // namespace tile_ir::passes
