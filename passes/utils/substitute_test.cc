#include "passes/utils/substitute.h"

#include "gtest/gtest.h"
#include "tile_ir/printer.h"

namespace tile_ir::passes {
namespace {

TEST(SubstituteTest, ReplacesVariablesByIdentity) {
  VarRef x = Var::Make("x");
  VarRef other_x = Var::Make("x");
  Expr e = Binary::Make(BinaryOp::kAdd, x, other_x);
  Expr result = Substitute(e, {{x.get(), Int(7)}});
  EXPECT_EQ(Print(result), "7 + x");
  EXPECT_EQ(Substitute(e, {{Var::Make("y").get(), Int(1)}}), e);
}

TEST(SubstituteTest, RebuildsBuffersWhoseShapeChangesOnce) {
  VarRef n = Var::Make("n");
  Buffer buffer = BufferNode::Make("t", kF32, {n}, MemoryScope::kShared);
  VarRef i = Var::Make("i");
  Stmt s = Seq::Make({Allocate::Make(buffer), Store::Make(buffer, {i}, Float(1.0))});
  Stmt result = Substitute(s, {{n.get(), Int(16)}});
  const Seq* seq = As<Seq>(result);
  ASSERT_NE(seq, nullptr);
  const Buffer& declared = As<Allocate>(seq->stmts[0])->buffer;
  EXPECT_NE(declared, buffer);
  EXPECT_EQ(As<Store>(seq->stmts[1])->buffer, declared);
  EXPECT_EQ(Print(declared->shape[0]), "16");
}

}  // namespace
}  // namespace tile_ir::passes
