#include "passes/analysis/var_mentions.h"

#include <gtest/gtest.h>

#include "tile_ir/op_shorthand.h"

namespace tile_ir::passes {
namespace {

TEST(VarMentionsTest, NamesTheVariablesOfExpressionsAndStatements) {
  VarRef i = Var::Make("i", kI32), j = Var::Make("j", kI32), n = Var::Make("n", kI32);
  Expr e = Op(BinaryOp::kAdd, Op(BinaryOp::kMul, i, Int(4)), j);
  EXPECT_EQ(MentionedVars(e), (VarSet{i.get(), j.get()}));
  EXPECT_TRUE(MentionsAny(e, {j.get()}));
  EXPECT_FALSE(MentionsAny(e, {n.get()}));
  EXPECT_FALSE(MentionsAny(Int(3), {i.get()}));
  // A statement's variables are those its expressions read; declaring one is not reading it.
  Stmt let = Let::Make(n, e, SourceLoc());
  EXPECT_EQ(MentionedVars(let), (VarSet{i.get(), j.get()}));
}

}  // namespace
}  // namespace tile_ir::passes
