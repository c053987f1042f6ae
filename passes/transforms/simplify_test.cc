#include "passes/transforms/simplify.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "passes/analysis/arith/expr_simplifier.h"
#include "passes/testing/ir_test_util.h"
#include "passes/utils/stmt_simplifier.h"
#include "tile_ir/printer.h"

namespace tile_ir::passes {
namespace {

using testing::Canonical;
using testing::ParseOrDie;
using testing::PrintVerified;

std::string SimplifiedText(std::string_view kernel_text) {
  Module module = ParseOrDie(kernel_text);
  SimplifyModule(module);
  return PrintVerified(module);
}

TEST(SimplifyTest, UsesLoopRanges) {
  EXPECT_EQ(SimplifiedText(R"(
kernel k(A: f32[256]) grid(bx: 1) threads(128) {
  for i in 0 +: 128 serial {
    A[floormod(i, 128) + floordiv(i, 128) * 128] = 1.0;
    A[min(i, 127) + max(i, 0)] = 2.0;
    if (i < 128) {
      A[i + 128] = 3.0;
    }
  }
})"),
            Canonical(R"(
kernel k(A: f32[256]) grid(bx: 1) threads(128) {
  for i in 0 +: 128 serial {
    A[i] = 1.0;
    A[i * 2] = 2.0;
    A[i + 128] = 3.0;
  }
})"));
}

TEST(SimplifyTest, UsesGridAndNestedRanges) {
  EXPECT_EQ(SimplifiedText(R"(
kernel k<N: i32>(A: f32[N]) grid(bx: 4) threads(128) {
  for t in 0 +: 128 thread_bound(x) {
    for v in 0 +: 4 vectorized {
      A[floordiv(bx * 512 + t * 4 + v, 4)] = 0.0;
      A[floormod(t * 4 + v, 4) + floordiv(bx, 4)] = 1.0;
      A[select(N >= 0, 1, 2)] = 2.0;
    }
  }
})"),
            Canonical(R"(
kernel k<N: i32>(A: f32[N]) grid(bx: 4) threads(128) {
  for t in 0 +: 128 thread_bound(x) {
    for v in 0 +: 4 vectorized {
      A[floordiv(bx * 512 + t * 4 + v, 4)] = 0.0;
      A[v] = 1.0;
      A[1] = 2.0;
    }
  }
})"));
}

// Found by the gpu_pipelines fuzz target: `grid(by: M % 1)` verifies (its value is the
// launch's to compute) but folded to the constant 0, which does not. Other extents fold.
TEST(SimplifyTest, KeepsAGridExtentThatWouldFoldToZero) {
  EXPECT_EQ(SimplifiedText(R"(
kernel k<M: i32>(A: f32[M]) grid(bx: M + 0, by: M % 1) threads(1) {
  A[0] = 1.0;
})"),
            Canonical(R"(
kernel k<M: i32>(A: f32[M]) grid(bx: M, by: M % 1) threads(1) {
  A[0] = 1.0;
})"));
}

TEST(SimplifyTest, RemovesDecidedBranches) {
  EXPECT_EQ(SimplifiedText(R"(
kernel k(A: f32[4]) grid(bx: 1) threads(1) {
  if (1 < 2) {
    A[0] = 1.0;
  } else {
    A[1] = 1.0;
  }
  if (2 + 2 == 5) {
    A[2] = 1.0;
  } else {
    A[3] = 1.0;
  }
  if (false) {
    A[0] = 0.0;
  }
})"),
            Canonical(R"(
kernel k(A: f32[4]) grid(bx: 1) threads(1) {
  A[0] = 1.0;
  A[3] = 1.0;
})"));
}

TEST(SimplifyTest, RemovesEmptyLoopsAndUnrollsSingleIterations) {
  EXPECT_EQ(SimplifiedText(R"(
kernel k(A: f32[64]) grid(bx: 2) threads(1) {
  for i in 0 +: 0 serial {
    A[i] = 1.0;
  }
  for j in 3 +: 1 unrolled {
    A[j * 2] = 1.0;
    for q in bx * 8 +: 1 parallel {
      A[q + j] = 2.0;
    }
  }
  for t in 0 +: 1 thread_bound(x) {
    A[t] = 3.0;
  }
})"),
            Canonical(R"(
kernel k(A: f32[64]) grid(bx: 2) threads(1) {
  A[6] = 1.0;
  A[bx * 8 + 3] = 2.0;
  for t in 0 +: 1 thread_bound(x) {
    A[t] = 3.0;
  }
})"));
}

TEST(SimplifyTest, KeepsBlocksThatDeclareSomething) {
  EXPECT_EQ(SimplifiedText(R"(
kernel k(A: f32[64]) grid(bx: 1) threads(1) {
  if (true) {
    alloc S: shared f32[64];
    copy A -> S;
  }
  for j in 0 +: 1 serial {
    let offset: i32 = j + 5;
    A[offset] = 1.0;
  }
})"),
            Canonical(R"(
kernel k(A: f32[64]) grid(bx: 1) threads(1) {
  {
    alloc S: shared f32[64];
    copy A -> S;
  }
  {
    let offset: i32 = 5;
    A[5] = 1.0;
  }
})"));
}

TEST(SimplifyTest, PropagatesLetsOfLiteralsAndVariables) {
  EXPECT_EQ(SimplifiedText(R"(
kernel k(A: f32[256]) grid(bx: 1) threads(1) {
  let tile: i32 = 64 * 2;
  for i in 0 +: tile serial {
    let alias: i32 = i;
    let first_row: i32 = floordiv(alias, tile);
    A[first_row + alias] = 1.0;
  }
})"),
            Canonical(R"(
kernel k(A: f32[256]) grid(bx: 1) threads(1) {
  let tile: i32 = 128;
  for i in 0 +: 128 serial {
    let alias: i32 = i;
    let first_row: i32 = 0;
    A[i] = 1.0;
  }
})"));
}

TEST(SimplifyTest, KeepsLoopsWhoseMinReadsMemory) {
  std::string input = R"(
kernel k(A: i32[4]) grid(bx: 1) threads(1) {
  for i in A[0] +: 1 serial {
    A[0] = 7;
    A[1] = i;
  }
})";
  EXPECT_EQ(SimplifiedText(input), Canonical(input));
}

TEST(SimplifyTest, ReportsChangesAndReachesAFixpoint) {
  Module module = ParseOrDie(R"(
kernel k(A: f32[8]) grid(bx: 1) threads(1) {
  A[(1 + 2) * 2] = 1.0;
})");
  EXPECT_TRUE(SimplifyModule(module));
  Kernel simplified = module.kernels[0];
  EXPECT_FALSE(SimplifyModule(module));
  EXPECT_EQ(module.kernels[0], simplified);
  EXPECT_EQ(SimplifyKernel(simplified), simplified);
}

TEST(SimplifyTest, WorksOnBuiltStatementsAndExpressions) {
  VarRef i = Var::Make("i");
  Buffer a = BufferNode::Make("A", kF32, {Int(128)}, MemoryScope::kGlobal);
  Expr index = Binary::Make(BinaryOp::kFloorMod, i, Int(128));
  Stmt loop = For::Make(i, Int(0), Int(128), ForKind::kSerial, Store::Make(a, {index}, Float(1)));
  Stmt simplified = Simplify(loop);
  const auto* store = As<Store>(As<For>(simplified)->body);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->indices[0], Expr(i));
  // Without the loop, nothing is known about i.
  EXPECT_EQ(arith::SimplifyExpr(index), index);
  EXPECT_EQ(Print(arith::SimplifyExpr(Binary::Make(BinaryOp::kAdd, Int(2), Int(3)))), "5");
  EXPECT_EQ(Print(Simplify(For::Make(i, Int(0), Int(0), ForKind::kSerial, loop))), "{\n}\n");
}

TEST(SimplifyTest, PassChecksItsOption) {
  PassInfo pass = SimplifyPass();
  EXPECT_EQ(pass.name, "simplify");
  absl::StatusOr<PassOptions> options =
      PassOptions::Create(pass.name, pass.options, {{"max-iterations", "0"}});
  ASSERT_TRUE(options.ok());
  Module module;
  EXPECT_EQ(RunPass(pass, module, *options).status().message(),
            "option 'max-iterations' of pass 'simplify' must be at least 1, got 0");
  options = PassOptions::Create(pass.name, pass.options, {});
  EXPECT_EQ(*RunPass(pass, module, *options), false);
}

TEST(SimplifyTest, IsLinearInTheNumberOfStatements) {
  constexpr int kStatements = 100000;
  VarRef i = Var::Make("i");
  Buffer a = BufferNode::Make("A", kF32, {Int(kStatements)}, MemoryScope::kGlobal);
  std::vector<Stmt> stores;
  for (int s = 0; s < kStatements; ++s) {
    Expr index = Binary::Make(BinaryOp::kAdd, Binary::Make(BinaryOp::kFloorMod, i, Int(1)), Int(s));
    stores.push_back(Store::Make(a, {index}, Float(1)));
  }
  Stmt body = For::Make(i, Int(0), Int(4), ForKind::kSerial, Seq::Make(std::move(stores)));
  Launch launch{{{Var::Make("bx"), Int(1)}}, {1}, {}, std::nullopt};
  Module module;
  module.kernels.push_back(
      KernelNode::Make("big", {}, {Param{a, nullptr}}, launch, Seq::Make({body})));
  auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(SimplifyModule(module));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 20.0);
  const auto* loop = As<For>(As<Seq>(module.kernels[0]->body)->stmts[0]);
  const auto* last = As<Store>(As<Seq>(loop->body)->stmts.back());
  EXPECT_EQ(Print(last->indices[0]), absl::StrCat(kStatements - 1));
}

TEST(SimplifyTest, HandlesDeepNesting) {
  Buffer a = BufferNode::Make("A", kF32, {Int(1)}, MemoryScope::kGlobal);
  Stmt body = Store::Make(a, {Int(0)}, Float(1));
  for (int depth = 0; depth < 400; ++depth) {
    body = For::Make(Var::Make(absl::StrCat("i", depth)), Int(0), Int(2), ForKind::kSerial,
                     Seq::Make({body}));
  }
  Stmt simplified = Simplify(body);
  EXPECT_EQ(simplified, body);
}

}  // namespace
}  // namespace tile_ir::passes
