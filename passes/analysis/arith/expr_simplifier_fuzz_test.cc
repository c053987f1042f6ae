// Random integer expressions evaluated before and after simplification, at
// random points inside the variables' ranges: every rewrite must keep the
// value, and simplifying again must change nothing.
#include <optional>
#include <random>

#include "absl/container/flat_hash_map.h"
#include "gtest/gtest.h"
#include "passes/analysis/arith/expr_simplifier.h"
#include "passes/analysis/arith/int_math.h"
#include "tile_ir/printer.h"

namespace tile_ir::arith {
namespace {

using Values = absl::flat_hash_map<const Var*, int64_t>;

// The value of e, or nullopt when evaluation divides by zero or leaves i32
// (signed overflow is undefined, so such a sample proves nothing).
std::optional<int64_t> Evaluate(const Expr& e, const Values& values) {
  if (std::optional<int64_t> c = AsConstInt(e)) return c;
  if (const auto* var = As<Var>(e)) return values.at(var);
  if (const auto* select = As<Select>(e)) {
    std::optional<int64_t> cond = Evaluate(select->cond, values);
    if (!cond) return std::nullopt;
    return Evaluate(*cond != 0 ? select->true_value : select->false_value, values);
  }
  if (const auto* unary = As<Unary>(e)) {
    std::optional<int64_t> a = Evaluate(unary->a, values);
    if (!a) return std::nullopt;
    if (unary->op == UnaryOp::kNot) return *a == 0;
    return FitsIn(-Wide{*a}, kI32) ? std::optional<int64_t>(-*a) : std::nullopt;
  }
  const auto* binary = As<Binary>(e);
  std::optional<int64_t> a = Evaluate(binary->a, values);
  std::optional<int64_t> b = Evaluate(binary->b, values);
  if (!a || !b) return std::nullopt;
  return EvalIntBinary(binary->op, *a, *b, binary->a->dtype());
}

class RandomExprs {
 public:
  RandomExprs(std::vector<VarRef> vars, uint32_t seed) : vars_(std::move(vars)), rng_(seed) {}

  Expr Int(int depth) {
    static constexpr BinaryOp kOps[] = {
        BinaryOp::kAdd, BinaryOp::kSub,      BinaryOp::kMul,      BinaryOp::kDiv,
        BinaryOp::kMod, BinaryOp::kFloorDiv, BinaryOp::kFloorMod, BinaryOp::kCeilDiv,
        BinaryOp::kMin, BinaryOp::kMax,      BinaryOp::kXor};
    constexpr int kNumOps = sizeof(kOps) / sizeof(kOps[0]);
    // 0: a literal, 1: a variable, then each operator, then a select.
    int choice = Pick(depth <= 0 ? 2 : kNumOps + 3);
    if (choice == 0) return tile_ir::Int(Pick(21) - 10 + (Pick(4) == 0 ? 128 : 0));
    if (choice == 1) return vars_[Pick(vars_.size())];
    if (choice == kNumOps + 2) {
      return Select::Make(Bool(depth - 1), Int(depth - 1), Int(depth - 1));
    }
    BinaryOp op = kOps[choice - 2];
    Expr a = Int(depth - 1);
    // Divisors are mostly literals, as in index arithmetic.
    bool divides = op == BinaryOp::kDiv || op == BinaryOp::kMod || op == BinaryOp::kFloorDiv ||
                   op == BinaryOp::kFloorMod || op == BinaryOp::kCeilDiv;
    Expr b = divides && Pick(4) != 0 ? tile_ir::Int(Pick(2) == 0 ? 1 << Pick(8) : Pick(9) - 4)
                                     : Int(depth - 1);
    return Binary::Make(op, a, b);
  }

  Expr Bool(int depth) {
    static constexpr BinaryOp kCompare[] = {BinaryOp::kEq, BinaryOp::kNe, BinaryOp::kLt,
                                            BinaryOp::kLe, BinaryOp::kGt, BinaryOp::kGe};
    int choice = Pick(depth <= 0 ? 1 : 4);
    if (choice == 0) return Binary::Make(kCompare[Pick(6)], Int(depth - 1), Int(depth - 1));
    if (choice == 1) return Unary::Make(UnaryOp::kNot, Bool(depth - 1));
    BinaryOp op = choice == 2 ? BinaryOp::kAnd : BinaryOp::kOr;
    return Binary::Make(op, Bool(depth - 1), Bool(depth - 1));
  }

  int64_t Pick(size_t n) { return std::uniform_int_distribution<int64_t>(0, n - 1)(rng_); }

 private:
  std::vector<VarRef> vars_;
  std::mt19937 rng_;
};

TEST(ExprSimplifierFuzzTest, SimplificationKeepsTheValue) {
  VarRef i = Var::Make("i");  // a loop index in [0, 127]
  VarRef j = Var::Make("j");  // a loop index in [16, 47]
  VarRef n = Var::Make("n");  // unknown
  ExprSimplifier simplifier;
  simplifier.BindRange(i, {0, 127});
  simplifier.BindRange(j, {16, 47});
  RandomExprs random({i, j, n}, /*seed=*/20240611);
  int compared = 0;
  for (int round = 0; round < 20000; ++round) {
    Expr original = round % 4 == 0 ? random.Bool(4) : random.Int(4);
    Expr simplified = simplifier.Simplify(original);
    ASSERT_EQ(simplifier.Simplify(simplified), simplified)
        << "not a fixed point: " << Print(original) << " -> " << Print(simplified);
    for (int sample = 0; sample < 8; ++sample) {
      Values values = {{i.get(), random.Pick(128)},
                       {j.get(), 16 + random.Pick(32)},
                       {n.get(), random.Pick(2001) - 1000}};
      std::optional<int64_t> expected = Evaluate(original, values);
      if (!expected) continue;
      ++compared;
      std::optional<int64_t> actual = Evaluate(simplified, values);
      ASSERT_EQ(actual, expected) << Print(original) << "\n  simplified to " << Print(simplified)
                                  << "\n  at i=" << values[i.get()] << " j=" << values[j.get()]
                                  << " n=" << values[n.get()];
    }
  }
  EXPECT_GT(compared, 50000);
}

}  // namespace
}  // namespace tile_ir::arith
