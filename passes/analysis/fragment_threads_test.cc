#include "passes/analysis/fragment_threads.h"

#include "gtest/gtest.h"
#include "tile_ir/op_shorthand.h"

namespace tile_ir::passes {
namespace {

Buffer Fragment(std::vector<Expr> shape, Layout layout) {
  return BufferNode::Make("F", kF32, std::move(shape), MemoryScope::kFragment, {},
                          std::move(layout));
}

TEST(FragmentThreadsTest, CountsRegistersPerThread) {
  VarRef i = Var::Make("i");
  VarRef j = Var::Make("j");
  Expr linear = Op(BinaryOp::kAdd, Op(BinaryOp::kMul, i, Int(8)), j);
  Buffer cyclic = Fragment(
      {Int(4), Int(8)},
      Layout{{i, j}, {Op(BinaryOp::kMod, linear, Int(4)), Op(BinaryOp::kDiv, linear, Int(4))}});
  absl::StatusOr<int64_t> registers = RegistersPerThread(*cyclic, 4);
  ASSERT_TRUE(registers.ok()) << registers.status();
  EXPECT_EQ(*registers, 8);
  EXPECT_FALSE(RegistersPerThread(*cyclic, 2).ok());
}

TEST(FragmentThreadsTest, RejectsCollisionsAndMissingLayouts) {
  VarRef i = Var::Make("i");
  Buffer collide = Fragment({Int(8)}, Layout{{i}, {Op(BinaryOp::kMod, i, Int(4)), Int(0)}});
  EXPECT_FALSE(RegistersPerThread(*collide, 4).ok());
  Buffer bare = BufferNode::Make("F", kF32, {Int(8)}, MemoryScope::kFragment);
  EXPECT_FALSE(RegistersPerThread(*bare, 4).ok());
  Buffer symbolic = Fragment({Var::Make("n")}, Layout{{i}, {i, Int(0)}});
  EXPECT_FALSE(RegistersPerThread(*symbolic, 4).ok());
}

TEST(FragmentThreadsTest, DecidesAgreementOnABox) {
  VarRef i = Var::Make("i");
  VarRef j = Var::Make("j");
  // (i * 4 + j) / 4 == i only while j < 4.
  Expr blocked = Op(BinaryOp::kDiv, Op(BinaryOp::kAdd, Op(BinaryOp::kMul, i, Int(4)), j), Int(4));
  EXPECT_TRUE(AgreeOnDomain({blocked, i}, {{i.get(), 0, 8}, {j.get(), 0, 4}}));
  EXPECT_FALSE(AgreeOnDomain({blocked, i}, {{i.get(), 0, 8}, {j.get(), 0, 5}}));
  EXPECT_FALSE(AgreeOnDomain({blocked, i}, {{i.get(), 0, 8}}));
}

}  // namespace
}  // namespace tile_ir::passes
