// Verifier tests of expression types, constants, intrinsic calls and stores.
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/verifier.h"
#include "tile_ir/verifier_test_util.h"

namespace tile_ir {
namespace {

using verifier_testing::GemmParts;
using verifier_testing::HasOneError;
using verifier_testing::kUserLoc;

// A kernel whose only problem should be in `value`, carried by an eval (which
// accepts any type).
Kernel KernelWithValue(const Expr& value, const GemmParts& parts = GemmParts()) {
  return parts.WithBody({Evaluate::Make(value, kUserLoc)});
}

TEST(VerifierTypesTest, BinaryOperandsMustHaveOneType) {
  Expr sum = Binary::Make(BinaryOp::kAdd, Int(1), Int(2, kI64));
  EXPECT_TRUE(
      HasOneError(KernelWithValue(sum), "operands of add have different types: i32 and i64"));
  Expr vector_sum =
      Binary::Make(BinaryOp::kAdd, Broadcast::Make(Float(1.0), 4), Broadcast::Make(Float(1.0), 2));
  EXPECT_TRUE(HasOneError(KernelWithValue(vector_sum),
                          "operands of add have different types: f32x4 and f32x2"));
}

TEST(VerifierTypesTest, ArithmeticOnBoolIsRejected) {
  Expr sum = Binary::Make(BinaryOp::kMul, Bool(true), Bool(false));
  EXPECT_TRUE(HasOneError(KernelWithValue(sum), "mul needs numeric operands, not bool"));
  EXPECT_TRUE(HasOneError(KernelWithValue(Unary::Make(UnaryOp::kNeg, Bool(true))),
                          "neg needs a numeric operand, not bool"));
}

TEST(VerifierTypesTest, IntegerOnlyOperators) {
  Expr mod = Binary::Make(BinaryOp::kFloorMod, Float(1.0), Float(2.0));
  EXPECT_TRUE(HasOneError(KernelWithValue(mod), "floormod needs integer operands, not f32"));
}

TEST(VerifierTypesTest, XorNeedsIntegersOfOneTypeAndKeepsTheirLanes) {
  Expr floats = Binary::Make(BinaryOp::kXor, Float(1.0), Float(2.0));
  EXPECT_TRUE(HasOneError(KernelWithValue(floats), "xor needs integer operands, not f32"));
  Expr bools = Binary::Make(BinaryOp::kXor, Bool(true), Bool(false));
  EXPECT_TRUE(HasOneError(KernelWithValue(bools), "xor needs integer operands, not bool"));
  Expr mixed = Binary::Make(BinaryOp::kXor, Int(1), Int(2, kI64));
  EXPECT_TRUE(
      HasOneError(KernelWithValue(mixed), "operands of xor have different types: i32 and i64"));
  for (DataType type : {kI4, kI8, kI16, kI32, kI64, kU8}) {
    Expr lanes = Binary::Make(BinaryOp::kXor, Broadcast::Make(Int(1, type), 4),
                              Broadcast::Make(Int(3, type), 4));
    EXPECT_EQ(lanes->dtype(), type.with_lanes(4));
    EXPECT_TRUE(VerifyKernel(*KernelWithValue(lanes)).empty()) << type.ToString();
  }
}

TEST(VerifierTypesTest, BitOperatorsNeedIntegers) {
  for (BinaryOp op : {BinaryOp::kBitAnd, BinaryOp::kBitOr, BinaryOp::kShl, BinaryOp::kShr}) {
    std::string name(BinaryOpName(op));
    EXPECT_TRUE(HasOneError(KernelWithValue(Binary::Make(op, Float(1.0), Float(2.0))),
                            name + " needs integer operands, not f32"));
    EXPECT_TRUE(HasOneError(KernelWithValue(Binary::Make(op, Bool(true), Bool(false))),
                            name + " needs integer operands, not bool"));
    for (DataType type : {kI4, kI8, kI16, kI32, kI64, kU8}) {
      Expr lanes = Binary::Make(op, Broadcast::Make(Int(1, type), 4),
                                Broadcast::Make(Int(3, type), 4));
      EXPECT_EQ(lanes->dtype(), type.with_lanes(4));
      EXPECT_TRUE(VerifyKernel(*KernelWithValue(lanes)).empty()) << name << type.ToString();
    }
  }
}

TEST(VerifierTypesTest, ReinterpretKeepsTheWidth) {
  EXPECT_TRUE(VerifyKernel(*KernelWithValue(Call::Make(kI32, kReinterpret, {Float(1.0)}))).empty());
  EXPECT_TRUE(
      VerifyKernel(*KernelWithValue(Call::Make(kF16, kReinterpret, {Int(7, kI16)}))).empty());
  EXPECT_TRUE(HasOneError(KernelWithValue(Call::Make(kI64, kReinterpret, {Float(1.0)})),
                          "reinterpret from f32 (32 bits) to i64 (64 bits) changes the width"));
  EXPECT_TRUE(HasOneError(KernelWithValue(Call::Make(kBool, kReinterpret, {Int(1, kI8)})),
                          "reinterpret from or to bool; use cast"));
  Expr two_floats = Broadcast::Make(Float(1.0), 2);
  EXPECT_TRUE(HasOneError(
      KernelWithValue(Call::Make(kI32.with_lanes(4), kReinterpret, {two_floats})),
      "changes the width"));
}

TEST(VerifierTypesTest, AtomicMaxAndMinNameAnElementOfTheValuesType) {
  GemmParts parts;
  Expr element = BufferLoad::Make(parts.c, {Int(0), Int(0)});
  for (const char* name : {kAtomicMaxAt, kAtomicMinAt}) {
    EXPECT_TRUE(
        VerifyKernel(*parts.WithBody({Evaluate::MakeVoidCall(name, {element, Float(1.0)})}))
            .empty());
    EXPECT_TRUE(HasOneError(
        parts.WithBody({Evaluate::MakeVoidCall(name, {Float(0.0), Float(1.0)}, kUserLoc)}),
        absl::StrCat("the first argument of '", name, "' must be a load naming the element")));
    EXPECT_TRUE(HasOneError(
        parts.WithBody({Evaluate::MakeVoidCall(name, {element, Int(1)}, kUserLoc)}),
        absl::StrCat("'", name, "' combines a i32 value with a f32 element")));
  }
}

TEST(VerifierTypesTest, LogicNeedsBool) {
  Expr both = Binary::Make(BinaryOp::kAnd, Int(1), Int(0));
  EXPECT_TRUE(HasOneError(KernelWithValue(both), "and needs bool operands, not i32"));
  EXPECT_TRUE(HasOneError(KernelWithValue(Unary::Make(UnaryOp::kNot, Int(1))),
                          "not needs a bool operand, not i32"));
}

TEST(VerifierTypesTest, StoredResultTypeMustMatchOperands) {
  auto forged = std::make_shared<const Binary>(BinaryOp::kLt, Int(1), Int(2), kI32);
  EXPECT_TRUE(HasOneError(KernelWithValue(forged), "lt has type i32, but its operands give bool"));
}

TEST(VerifierTypesTest, Select) {
  Expr int_cond = Select::Make(Int(1), Float(1.0), Float(2.0));
  EXPECT_TRUE(HasOneError(KernelWithValue(int_cond), "select condition must be bool, not i32"));
  Expr mixed = Select::Make(Bool(true), Float(1.0), Float(2.0, kF16));
  EXPECT_TRUE(
      HasOneError(KernelWithValue(mixed), "select values have different types: f32 and f16"));
}

TEST(VerifierTypesTest, CastToOrFromVoid) {
  EXPECT_TRUE(HasOneError(KernelWithValue(Cast::Make(kVoid, Int(1))), "cast to void"));
  IntrinsicInfo effect;
  effect.name = "verifier_types_test.effect";
  effect.num_args = 0;
  effect.result = IntrinsicInfo::ResultType::kVoid;
  RegisterIntrinsic(effect);
  Expr from_void = Cast::Make(kF32, Call::Make(kVoid, "verifier_types_test.effect", {}));
  EXPECT_TRUE(HasOneError(KernelWithValue(from_void), "cast from void"));
}

TEST(VerifierTypesTest, Calls) {
  EXPECT_TRUE(HasOneError(KernelWithValue(Call::Make(kF32, "exp3", {Float(1.0)})),
                          "unknown intrinsic 'exp3'"));
  EXPECT_TRUE(HasOneError(KernelWithValue(Call::Make(kF32, "exp2", {Float(1.0), Float(2.0)})),
                          "intrinsic 'exp2' takes 1 arguments, but is given 2"));
  EXPECT_TRUE(HasOneError(KernelWithValue(Call::Make(kI32, "exp2", {Int(1)})),
                          "intrinsic 'exp2' needs float arguments, but argument 0 is i32"));
  EXPECT_TRUE(HasOneError(KernelWithValue(Call::Make(kF16, "exp2", {Float(1.0)})),
                          "call of 'exp2' has type f16, but the intrinsic yields f32"));
  // abs is not float-only.
  EXPECT_TRUE(VerifyKernel(*KernelWithValue(Call::Make(kI32, "abs", {Int(-1)}))).empty());
}

TEST(VerifierTypesTest, RampAndBroadcastLanes) {
  auto one_lane_ramp = std::make_shared<const Ramp>(Int(0), Int(1), 1, kI32);
  EXPECT_TRUE(HasOneError(KernelWithValue(one_lane_ramp), "ramp needs at least 2 lanes, not 1"));
  EXPECT_TRUE(HasOneError(KernelWithValue(Ramp::Make(Int(0), Int(1, kI64), 4)),
                          "ramp base and stride must be integer scalars of one type"));
  auto one_lane_broadcast = std::make_shared<const Broadcast>(Float(1.0), 1, kF32);
  EXPECT_TRUE(
      HasOneError(KernelWithValue(one_lane_broadcast), "broadcast needs at least 2 lanes, not 1"));
  auto wrong_type = std::make_shared<const Broadcast>(Float(1.0), 4, kF32.with_lanes(2));
  EXPECT_TRUE(HasOneError(KernelWithValue(wrong_type),
                          "broadcast has type f32x2, but its operands give f32x4"));
}

TEST(VerifierTypesTest, IntegerConstantsFitTheirType) {
  struct Case {
    DataType type;
    int64_t value;
    const char* message;
  };
  for (const Case& c : {Case{kI8, 200, "constant 200 does not fit i8 (range [-128, 127])"},
                        Case{kI8, -129, "constant -129 does not fit i8"},
                        Case{kU8, -1, "constant -1 does not fit u8 (range [0, 255])"},
                        Case{kBool, 2, "constant 2 does not fit bool (range [0, 1])"},
                        Case{kI4, 8, "constant 8 does not fit i4 (range [-8, 7])"},
                        Case{kI32, int64_t{1} << 31, "does not fit i32"},
                        Case{kF32, 1, "integer constant 1 has type f32"}}) {
    SCOPED_TRACE(c.message);
    EXPECT_TRUE(HasOneError(KernelWithValue(IntImm::Make(c.type, c.value)), c.message));
  }
  for (const auto& [type, value] :
       {std::pair{kI4, -8}, std::pair{kU8, 255}, std::pair{kI8, -128}}) {
    EXPECT_TRUE(VerifyKernel(*KernelWithValue(IntImm::Make(type, value))).empty());
  }
}

TEST(VerifierTypesTest, FloatConstantNeedsFloatType) {
  EXPECT_TRUE(HasOneError(KernelWithValue(FloatImm::Make(kI32, 0.5)),
                          "float constant 0.5 has type i32; it needs a float type"));
}

TEST(VerifierTypesTest, LetVariableTypes) {
  GemmParts g;
  EXPECT_TRUE(HasOneError(g.WithBody({Let::Make(Var::Make("v", kF32), Int(1), kUserLoc)}),
                          "in let 'v': the variable is f32, but its value is i32"));
  EXPECT_TRUE(HasOneError(g.WithBody({Let::Make(Var::Make("v", kVoid), Int(1), kUserLoc)}),
                          "a let variable cannot be void"));
}

TEST(VerifierTypesTest, LoadIndices) {
  GemmParts g;
  EXPECT_TRUE(HasOneError(KernelWithValue(BufferLoad::Make(g.a_s, {Int(0)}), g),
                          "load from 'A_s' has 1 indices, but the buffer has rank 2"));
  EXPECT_TRUE(HasOneError(KernelWithValue(BufferLoad::Make(g.a_s, {Int(0), Float(1.0)}), g),
                          "index 1 of the load from 'A_s' must be an integer, not f32"));
}

TEST(VerifierTypesTest, IfConditionMustBeBool) {
  GemmParts g;
  EXPECT_TRUE(HasOneError(g.WithBody({If::Make(Int(1), Barrier::Make(), nullptr, kUserLoc)}),
                          "in if: the condition must be bool, not i32"));
}

TEST(VerifierTypesTest, LoopBounds) {
  GemmParts g;
  EXPECT_TRUE(HasOneError(g.WithBody({For::Make(Var::Make("i"), Int(0), Float(4.0),
                                                ForKind::kSerial, Barrier::Make(), kUserLoc)}),
                          "in for loop over 'i': loop extent must be an integer scalar, not f32"));
  EXPECT_TRUE(HasOneError(g.WithBody({For::Make(Var::Make("i"), Int(0), Int(4, kI64),
                                                ForKind::kSerial, Barrier::Make(), kUserLoc)}),
                          "loop extent is i64, but the loop variable is i32"));
  EXPECT_TRUE(HasOneError(g.WithBody({For::Make(Var::Make("i"), Int(0), Int(-4), ForKind::kSerial,
                                                Barrier::Make(), kUserLoc)}),
                          "loop extent -4 is negative"));
}

TEST(VerifierTypesTest, StoreValueMatchesElementType) {
  GemmParts g;
  EXPECT_TRUE(
      HasOneError(g.WithBody({Store::Make(g.c_l, {Int(0), Int(0)}, Float(1.0, kF16), kUserLoc)}),
                  "in store to 'C_l': the stored value is f16, but 'C_l' at these "
                  "indices takes f32"));
  Expr ramp = Ramp::Make(Int(0), Int(1), 4);
  EXPECT_TRUE(HasOneError(g.WithBody({Store::Make(g.c_l, {Int(0), ramp}, Float(1.0), kUserLoc)}),
                          "the stored value is f32, but 'C_l' at these indices takes f32x4"));
  EXPECT_TRUE(VerifyKernel(
                  *g.WithBody({Store::Make(g.c_l, {Int(0), ramp}, Broadcast::Make(Float(1.0), 4))}))
                  .empty());
}

TEST(VerifierTypesTest, StoreRankAndIndexTypes) {
  GemmParts g;
  EXPECT_TRUE(HasOneError(g.WithBody({Store::Make(g.c_l, {Int(0)}, Float(1.0), kUserLoc)}),
                          "1 indices for a buffer of rank 2"));
  EXPECT_TRUE(
      HasOneError(g.WithBody({Store::Make(g.c_l, {Int(0), Bool(true)}, Float(1.0), kUserLoc)}),
                  "index 1 must be an integer, not bool"));
}

TEST(VerifierTypesTest, MissingOperandIsReportedNotDereferenced) {
  auto broken = std::make_shared<const Binary>(BinaryOp::kAdd, Int(1), nullptr, kI32);
  EXPECT_TRUE(HasOneError(KernelWithValue(broken), "add has a missing operand"));
  GemmParts g;
  EXPECT_TRUE(HasOneError(g.WithBody({Let::Make(Var::Make("v"), nullptr, kUserLoc)}),
                          "in let 'v': missing value"));
}

}  // namespace
}  // namespace tile_ir
