#include "passes/transforms/remove_dead_code.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "passes/testing/ir_test_util.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/printer.h"

namespace tile_ir::passes {
namespace {

using testing::Canonical;
using testing::ParseOrDie;
using testing::PrintVerified;

std::string WithoutDeadCode(std::string_view kernel_text) {
  Module module = ParseOrDie(kernel_text);
  RemoveDeadCode(module);
  return PrintVerified(module);
}

TEST(RemoveDeadCodeTest, RemovesUnusedLetsInCascade) {
  EXPECT_EQ(WithoutDeadCode(R"(
kernel k(A: i32[8]) grid(bx: 1) threads(1) {
  let a: i32 = 1;
  let b: i32 = a + 1;
  let c: i32 = b * 2;
  let used: i32 = 3;
  A[used] = 0;
  for i in 0 +: 8 serial {
    let inner: i32 = i + c;
  }
})"),
            Canonical(R"(
kernel k(A: i32[8]) grid(bx: 1) threads(1) {
  let used: i32 = 3;
  A[used] = 0;
})"));
}

TEST(RemoveDeadCodeTest, RemovesUnusedAllocationsAndTheLetsTheirShapesUse) {
  EXPECT_EQ(WithoutDeadCode(R"(
kernel k(A: f32[64]) grid(bx: 1) threads(32) {
  let size: i32 = 64;
  alloc unused: shared f32[size];
  alloc used: shared f32[64];
  copy A -> used;
})"),
            Canonical(R"(
kernel k(A: f32[64]) grid(bx: 1) threads(32) {
  alloc used: shared f32[64];
  copy A -> used;
})"));
}

TEST(RemoveDeadCodeTest, RemovesEmptyControlFlow) {
  EXPECT_EQ(WithoutDeadCode(R"(
kernel k<N: i32>(A: f32[N]) grid(bx: 1) threads(1) {
  for i in 0 +: N serial {
  }
  if (N > 4) {
  } else {
  }
  if (N > 8) {
    A[0] = 1.0;
  } else {
    {
    }
  }
  if (N > 16) {
  } else {
    A[1] = 1.0;
  }
  {
    {
      A[2] = 1.0;
    }
  }
  for j in 0 +: N pipelined(num_stages=2) {
  }
})"),
            Canonical(R"(
kernel k<N: i32>(A: f32[N]) grid(bx: 1) threads(1) {
  if (N > 8) {
    A[0] = 1.0;
  }
  if (!(N > 16)) {
    A[1] = 1.0;
  }
  A[2] = 1.0;
  for j in 0 +: N pipelined(num_stages=2) {
  }
})"));
}

TEST(RemoveDeadCodeTest, KeepsSideEffects) {
  IntrinsicInfo effect;
  effect.name = "remove_dead_code_test.effect";
  effect.num_args = 0;
  effect.result = IntrinsicInfo::ResultType::kFixed;
  effect.fixed_result = kI32;
  effect.pure = false;
  RegisterIntrinsic(effect);
  std::string input = R"(
kernel k(A: f32[8]) grid(bx: 1) threads(1) {
  let kept: i32 = remove_dead_code_test.effect();
  eval remove_dead_code_test.effect();
  eval exp2(1.0);
  barrier(block);
  A[0] = 1.0;
})";
  Module module = ParseOrDie(input);
  EXPECT_TRUE(RemoveDeadCode(module));
  EXPECT_EQ(Print(module), Canonical(R"(
kernel k(A: f32[8]) grid(bx: 1) threads(1) {
  let kept: i32 = remove_dead_code_test.effect();
  eval remove_dead_code_test.effect();
  barrier(block);
  A[0] = 1.0;
})"));
}

TEST(RemoveDeadCodeTest, ReportsWhetherItChangedAnything) {
  Module module = ParseOrDie(R"(
kernel k(A: f32[8]) grid(bx: 1) threads(1) {
  let unused: i32 = 1;
  A[0] = 1.0;
})");
  EXPECT_TRUE(RemoveDeadCode(module));
  Kernel cleaned = module.kernels[0];
  EXPECT_FALSE(RemoveDeadCode(module));
  EXPECT_EQ(module.kernels[0], cleaned);
}

TEST(RemoveDeadCodeTest, WorksOnBuiltStatements) {
  VarRef v = Var::Make("v");
  Stmt dead = Seq::Make({Let::Make(v, Int(1)), Evaluate::Make(Binary::Make(BinaryOp::kAdd, v, v))});
  EXPECT_EQ(Print(RemoveDeadCode(dead)), "{\n}\n");
  Buffer a = BufferNode::Make("A", kI32, {Int(1)}, MemoryScope::kGlobal);
  Stmt live = Seq::Make({Let::Make(v, Int(1)), Store::Make(a, {Int(0)}, v)});
  EXPECT_EQ(RemoveDeadCode(live), live);
}

TEST(RemoveDeadCodeTest, IsLinearInTheNumberOfStatements) {
  // A chain of 100,000 lets, each used only by the next; the last is unused,
  // so the whole chain goes in one back-to-front walk.
  constexpr int kLets = 100000;
  std::vector<Stmt> stmts;
  VarRef previous = Var::Make("v0");
  stmts.push_back(Let::Make(previous, Int(0)));
  for (int i = 1; i < kLets; ++i) {
    VarRef next = Var::Make(absl::StrCat("v", i));
    stmts.push_back(Let::Make(next, Binary::Make(BinaryOp::kAdd, previous, Int(1))));
    previous = next;
  }
  Stmt result = RemoveDeadCode(Seq::Make(std::move(stmts)));
  EXPECT_TRUE(As<Seq>(result)->stmts.empty());
}

TEST(RemoveDeadCodeTest, PassHasItsName) {
  PassInfo pass = RemoveDeadCodePass();
  EXPECT_EQ(pass.name, "remove-dead-code");
  EXPECT_TRUE(pass.options.empty());
}

}  // namespace
}  // namespace tile_ir::passes
