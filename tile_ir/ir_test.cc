// Node construction, type rules, and that the mutator shares what it does not change.
#include <gtest/gtest.h>

#include "tile_ir/buffer.h"
#include "tile_ir/dtype.h"
#include "tile_ir/expr.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/mutator.h"
#include "tile_ir/stmt.h"
#include "tile_ir/visitor.h"

namespace tile_ir {
namespace {

TEST(DataTypeTest, ParsesAndPrintsEveryScalarAndVectors) {
  for (const char* name : {"void", "bool", "i4", "i8", "i16", "i32", "i64", "u8", "f8e4m3",
                           "f8e5m2", "f16", "bf16", "f32", "f64", "f16x8", "bf16x2", "i4x32"}) {
    std::optional<DataType> t = DataType::Parse(name);
    ASSERT_TRUE(t.has_value()) << name;
    EXPECT_EQ(t->ToString(), name);
  }
  for (const char* bad : {"", "f", "f33", "f32x", "f32x1", "f32x0", "i32x-4", "float"}) {
    EXPECT_FALSE(DataType::Parse(bad).has_value()) << bad;
  }
  EXPECT_EQ(kI4.bits(), 4);
  EXPECT_EQ(kBF16.bits(), 16);
  EXPECT_TRUE(kF8E4M3.is_float());
  EXPECT_TRUE(kU8.is_int());
  EXPECT_FALSE(kBool.is_int());
}

TEST(ExprTest, ResultTypes) {
  VarRef i = Var::Make("i");
  Expr cmp = Binary::Make(BinaryOp::kLt, i, Int(4));
  EXPECT_EQ(cmp->dtype(), kBool);
  Expr ramp = Ramp::Make(i, Int(1), 4);
  EXPECT_EQ(ramp->dtype(), kI32.with_lanes(4));
  Buffer a = BufferNode::Make("A", kF16, {Int(128)}, MemoryScope::kShared);
  EXPECT_EQ(BufferLoad::Make(a, {ramp})->dtype(), kF16.with_lanes(4));
  EXPECT_EQ(Unary::Make(UnaryOp::kNot, cmp)->dtype(), kBool);
}

TEST(IntrinsicsTest, BuiltinsAndRegistration) {
  const IntrinsicInfo* exp2 = FindIntrinsic("exp2");
  ASSERT_NE(exp2, nullptr);
  EXPECT_EQ(IntrinsicResultType(*exp2, {Float(1.0, kF16)}), kF16);
  EXPECT_EQ(FindIntrinsic("no_such_intrinsic"), nullptr);
  IntrinsicInfo info;
  info.name = "test.effect";
  info.num_args = 0;
  info.result = IntrinsicInfo::ResultType::kVoid;
  info.pure = false;
  EXPECT_TRUE(RegisterIntrinsic(info));
  EXPECT_FALSE(RegisterIntrinsic(info));
}

// Replaces one variable by a constant.
class ReplaceVar : public IRMutator {
 public:
  ReplaceVar(const Var* var, Expr value) : var_(var), value_(std::move(value)) {}

 protected:
  Expr MutateVar(const Var& node, const Expr& self) override {
    return &node == var_ ? value_ : self;
  }

 private:
  const Var* var_;
  Expr value_;
};

TEST(MutatorTest, RebuildsOnlyChangedPaths) {
  VarRef i = Var::Make("i");
  VarRef j = Var::Make("j");
  Buffer a = BufferNode::Make("A", kF32, {Int(16), Int(16)}, MemoryScope::kLocal);
  Expr untouched = Binary::Make(BinaryOp::kMul, j, Int(2));
  Stmt store = Store::Make(a, {Binary::Make(BinaryOp::kAdd, i, Int(1)), untouched}, Float(0.0));
  Stmt other = Barrier::Make();
  Stmt seq = Seq::Make({store, other});

  ReplaceVar replace(i.get(), Int(3));
  Stmt result = replace.Mutate(seq);
  ASSERT_NE(result, seq);
  const auto* new_seq = As<Seq>(result);
  ASSERT_NE(new_seq, nullptr);
  EXPECT_EQ(new_seq->stmts[1], other);
  const auto* new_store = As<Store>(new_seq->stmts[0]);
  ASSERT_NE(new_store, nullptr);
  EXPECT_EQ(new_store->indices[1], untouched);
  EXPECT_EQ(new_store->buffer, a);

  ReplaceVar no_op(Var::Make("k").get(), Int(0));
  EXPECT_EQ(no_op.Mutate(seq), seq);
}

// Counts buffer uses to check that every tile operation reports its regions.
class CountUses : public IRVisitor {
 public:
  int uses = 0;

 protected:
  void VisitBufferUse(const Buffer&) override { ++uses; }
};

TEST(VisitorTest, VisitsEveryRegionOfTileOps) {
  Buffer a = BufferNode::Make("A", kF16, {Int(16), Int(16)}, MemoryScope::kShared);
  Buffer c = BufferNode::Make("C", kF32, {Int(16), Int(16)}, MemoryScope::kFragment);
  Buffer r = BufferNode::Make("R", kF32, {Int(16)}, MemoryScope::kFragment);
  Stmt body = Seq::Make({
      Gemm::Make(Region::Full(a), Region::Full(a), Region::Full(c)),
      Reduce::Make(ReduceKind::kMax, Region::Full(c), Region::Full(r), 1),
      Copy::Make(Region::Full(c), Region::Full(c)),
      Fill::Make(Region::Full(r), Float(0.0)),
      Cumsum::Make(Region::Full(c), Region::Full(c), 0),
      AtomicAdd::Make(Region::Full(c), Region::Full(c)),
  });
  CountUses count;
  count.Visit(body);
  EXPECT_EQ(count.uses, 3 + 2 + 2 + 1 + 2 + 2);
}

}  // namespace
}  // namespace tile_ir
