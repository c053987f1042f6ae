// Verifier tests: valid kernels pass, diagnostics are located and formatted,
// names are scoped and unique, deep trees are refused without overflowing.
#include "tile_ir/verifier.h"

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/nesting_limit.h"
#include "tile_ir/verifier_test_util.h"

namespace tile_ir {
namespace {

using verifier_testing::ConstRegion;
using verifier_testing::DiagnosticsText;
using verifier_testing::GemmParts;
using verifier_testing::HasOneError;
using verifier_testing::IsOneError;
using verifier_testing::kKernelLoc;
using verifier_testing::kUserLoc;
using verifier_testing::LetAtUserLoc;

Expr Add(Expr a, Expr b) { return Binary::Make(BinaryOp::kAdd, std::move(a), std::move(b)); }

TEST(VerifierTest, ValidGemmHasNoDiagnostics) {
  GemmParts g;
  std::vector<Diagnostic> diagnostics = VerifyKernel(*g.Valid());
  EXPECT_TRUE(diagnostics.empty()) << DiagnosticsText(diagnostics);
  Module module;
  module.kernels = {g.Valid()};
  EXPECT_TRUE(Verify(module).ok());
}

// Thread-level constructs that lowering produces must pass as well.
TEST(VerifierTest, ValidThreadLevelKernelHasNoDiagnostics) {
  IntrinsicInfo effect;
  effect.name = "verifier_test.effect";
  effect.num_args = 0;
  effect.result = IntrinsicInfo::ResultType::kVoid;
  effect.pure = false;
  RegisterIntrinsic(effect);

  GemmParts g;
  VarRef i = Var::Make("i");
  Layout row_layout{{i},
                    {Binary::Make(BinaryOp::kFloorMod, i, Int(128)),
                     Binary::Make(BinaryOp::kFloorDiv, i, Int(128))}};
  Buffer row_max =
      BufferNode::Make("row_max", kF32, {Int(128)}, MemoryScope::kFragment, {}, row_layout);
  Buffer vec = BufferNode::Make("vec", kF32, {Int(4)}, MemoryScope::kLocal);
  VarRef tx = Var::Make("tx");
  VarRef v = Var::Make("v");
  VarRef p = Var::Make("p");
  VarRef half = Var::Make("half");
  Expr lane = Cast::Make(kF32, v);
  Stmt thread_body = Seq::Make({
      Let::Make(half, Binary::Make(BinaryOp::kDiv, tx, Int(2))),
      If::Make(Binary::Make(BinaryOp::kLt, half, Int(32)),
               Store::Make(vec, {Ramp::Make(Int(0), Int(1), 4)}, Broadcast::Make(Float(1.0), 4)),
               Evaluate::Make(Call::Make(kVoid, "verifier_test.effect", {}))),
      For::Make(v, Int(0), Int(4), ForKind::kVectorized,
                Store::Make(vec, {v}, Call::Make(kF32, "exp2", {lane}))),
      For::Make(p, Int(0), Int(4), ForKind::kParallel,
                Store::Make(
                    vec, {p},
                    Select::Make(Binary::Make(BinaryOp::kLt, p, Int(2)), BufferLoad::Make(vec, {p}),
                                 Unary::Make(UnaryOp::kNeg, BufferLoad::Make(vec, {p}))))),
      Evaluate::Make(Call::Make(kF32, "exp2", {Float(1.0)})),
  });
  Kernel kernel = g.WithBody({
      Allocate::Make(row_max),
      Allocate::Make(vec),
      For::Make(tx, Int(0), Int(128), ForKind::kThreadBound, thread_body, SourceLoc{}, {},
                ThreadAxis::kX),
      Barrier::Make(),
      Reduce::Make(ReduceKind::kMax, Region::Full(g.c_l), Region::Full(row_max), 1),
      Cumsum::Make(Region::Full(g.c_l), Region::Full(g.c_l), 1),
      AtomicAdd::Make(Region::Full(g.c_l), ConstRegion(g.c, {{0, 128}, {0, 128}})),
  });
  std::vector<Diagnostic> diagnostics = VerifyKernel(*kernel);
  EXPECT_TRUE(diagnostics.empty()) << DiagnosticsText(diagnostics);
}

TEST(VerifierTest, DiagnosticToStringOmitsUnknownParts) {
  EXPECT_EQ((Diagnostic{kUserLoc, "k", "bad"}).ToString(),
            "user.cc:12:3: error: in kernel 'k': bad");
  EXPECT_EQ((Diagnostic{SourceLoc{}, "k", "bad"}).ToString(), "error: in kernel 'k': bad");
  EXPECT_EQ((Diagnostic{SourceLoc{"f.tile", 4, 0}, "", "bad"}).ToString(), "f.tile:4: error: bad");
}

TEST(VerifierTest, VerifyJoinsEveryDiagnostic) {
  GemmParts g;
  Kernel kernel =
      g.WithBody({LetAtUserLoc(Var::Make("p"), "a1"), LetAtUserLoc(Var::Make("q"), "a2")});
  Module module;
  module.kernels = {kernel};
  absl::Status status = Verify(module);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "user.cc:12:3: error: in kernel 'matmul': in let 'a1': variable 'p' is used but not "
            "defined here\n"
            "user.cc:12:3: error: in kernel 'matmul': in let 'a2': variable 'q' is used but not "
            "defined here");
}

TEST(VerifierTest, CollectsAllDiagnosticsUpToACap) {
  GemmParts g;
  std::vector<Stmt> lets;
  for (int i = 0; i < 150; ++i) {
    lets.push_back(LetAtUserLoc(Var::Make("undefined"), "v" + std::to_string(i)));
  }
  std::vector<Diagnostic> diagnostics = VerifyKernel(*g.WithBody(lets));
  ASSERT_EQ(diagnostics.size(), 101u);
  EXPECT_TRUE(absl::StrContains(diagnostics[99].message, "in let 'v99'"));
  EXPECT_EQ(diagnostics[100].message, "... and 50 more errors");
}

TEST(VerifierTest, StatementWithoutLocationUsesEnclosingOne) {
  GemmParts g;
  VarRef i = Var::Make("i");
  Stmt inner = Let::Make(Var::Make("v"), Var::Make("p"));
  Kernel kernel = g.WithBody({For::Make(i, Int(0), Int(4), ForKind::kSerial, inner, kUserLoc)});
  EXPECT_TRUE(HasOneError(kernel, "in let 'v': variable 'p' is used but not defined"));
}

TEST(VerifierTest, DuplicateKernelNamesInModule) {
  GemmParts g;
  Module module;
  module.kernels = {g.Valid(), g.Valid()};
  std::vector<Diagnostic> diagnostics = VerifyModule(module);
  ASSERT_EQ(diagnostics.size(), 1u) << DiagnosticsText(diagnostics);
  EXPECT_EQ(diagnostics[0].ToString(),
            "user.cc:1:1: error: two kernels are named 'matmul' (kernel names must be unique in a "
            "module)");
}

TEST(VerifierTest, InvalidKernelName) {
  GemmParts g;
  Kernel bad = KernelNode::Make("2mm", g.Valid()->dims, g.Valid()->params, g.DefaultLaunch(),
                                g.Valid()->body, kKernelLoc);
  std::vector<Diagnostic> diagnostics = VerifyKernel(*bad);
  ASSERT_EQ(diagnostics.size(), 1u) << DiagnosticsText(diagnostics);
  EXPECT_EQ(diagnostics[0].ToString(),
            "user.cc:1:1: error: in kernel '2mm': '2mm' is not a valid kernel name "
            "([A-Za-z_][A-Za-z0-9_.]*)");
}

TEST(VerifierTest, DeepExpressionIsReportedNotOverflowed) {
  GemmParts g;
  Expr deep = Int(0);
  for (int i = 0; i < 10001; ++i) deep = Add(deep, Int(1));
  EXPECT_TRUE(HasOneError(g.WithBody({LetAtUserLoc(deep)}),
                          "expression nested too deeply: the value has 10002 levels"));
}

TEST(VerifierTest, SharedSubtreesAreCheckedOnce) {
  GemmParts g;
  // 2^200 paths but 200 distinct nodes: the walk must not follow every path.
  Expr shared = Int(1);
  for (int i = 0; i < 200; ++i) shared = Add(shared, shared);
  EXPECT_TRUE(VerifyKernel(*g.WithBody({LetAtUserLoc(shared)})).empty());
}

TEST(VerifierTest, DeepStatementNestingIsReported) {
  GemmParts g;
  Stmt nested = Barrier::Make();
  // Past the verifier's bound, which leaves room above the readers' for lowering's loops.
  for (int i = 0; i < 3 * kMaxNestingDepth; ++i) nested = Seq::Make({nested}, kUserLoc);
  EXPECT_TRUE(HasOneError(g.WithBody({nested}), "statements nested too deeply"));
}

TEST(VerifierNamesTest, UndefinedVariable) {
  GemmParts g;
  EXPECT_TRUE(HasOneError(g.WithBody({LetAtUserLoc(Var::Make("p"))}),
                          "in let 'v': variable 'p' is used but not defined here"));
}

TEST(VerifierNamesTest, LoopVariableIsScopedToItsBody) {
  GemmParts g;
  VarRef i = Var::Make("i");
  Kernel kernel = g.WithBody(
      {For::Make(i, Int(0), Int(4), ForKind::kSerial, Barrier::Make()), LetAtUserLoc(i)});
  EXPECT_TRUE(HasOneError(kernel, "variable 'i' is used but not defined here"));
}

TEST(VerifierNamesTest, LoopVariableIsNotBoundInItsOwnExtent) {
  GemmParts g;
  VarRef i = Var::Make("i");
  Kernel kernel =
      g.WithBody({For::Make(i, Int(0), i, ForKind::kSerial, Barrier::Make(), kUserLoc)});
  EXPECT_TRUE(HasOneError(kernel, "in for loop over 'i': variable 'i' is used but not defined"));
}

TEST(VerifierNamesTest, LetIsScopedToItsBlock) {
  GemmParts g;
  VarRef inner = Var::Make("inner");
  Kernel kernel = g.WithBody({Seq::Make({Let::Make(inner, Int(1))}), LetAtUserLoc(inner)});
  EXPECT_TRUE(HasOneError(kernel, "in let 'v': variable 'inner' is used but not defined here"));
}

TEST(VerifierNamesTest, VariablesAreComparedByIdentity) {
  GemmParts g;
  VarRef i = Var::Make("i");
  Stmt use = LetAtUserLoc(Var::Make("i"));
  Kernel kernel = g.WithBody({For::Make(i, Int(0), Int(4), ForKind::kSerial, use)});
  EXPECT_TRUE(HasOneError(kernel, "variable 'i' is not the variable of that name in scope"));
}

TEST(VerifierNamesTest, BlockIndexAndDimensionsAreVisibleInTheBody) {
  GemmParts g;
  Kernel kernel = g.WithBody({LetAtUserLoc(Add(g.bx, g.m))});
  EXPECT_TRUE(VerifyKernel(*kernel).empty());
}

TEST(VerifierNamesTest, UndeclaredBuffer) {
  GemmParts g;
  Buffer other = BufferNode::Make("T_s", kF16, {Int(128), Int(32)}, MemoryScope::kShared);
  Kernel kernel = g.WithBody({Copy::Make(Region::Full(other), Region::Full(g.a_s), kUserLoc)});
  EXPECT_TRUE(HasOneError(kernel, "in copy: buffer 'T_s' is used but not declared here"));
}

TEST(VerifierNamesTest, AllocationIsScopedToItsBlock) {
  GemmParts g;
  Buffer t = BufferNode::Make("T_s", kF16, {Int(128), Int(32)}, MemoryScope::kShared);
  Kernel kernel = g.WithBody(
      {Seq::Make({Allocate::Make(t)}), Copy::Make(Region::Full(t), Region::Full(g.a_s), kUserLoc)});
  EXPECT_TRUE(HasOneError(kernel, "buffer 'T_s' is used but not declared here"));
}

TEST(VerifierNamesTest, LoadOfUndeclaredBuffer) {
  GemmParts g;
  Buffer t = BufferNode::Make("T", kF32, {Int(4)}, MemoryScope::kLocal);
  EXPECT_TRUE(HasOneError(g.WithBody({LetAtUserLoc(BufferLoad::Make(t, {Int(0)}))}),
                          "buffer 'T' is used but not declared here"));
}

TEST(VerifierNamesTest, NameDeclaredTwice) {
  GemmParts g;
  Buffer clash = BufferNode::Make("A", kF16, {Int(4)}, MemoryScope::kLocal);
  EXPECT_TRUE(HasOneError(g.WithBody({Allocate::Make(clash, kUserLoc)}),
                          "in alloc 'A': 'A' is already declared in this kernel"));
}

TEST(VerifierNamesTest, SiblingLoopsNeedDistinctNames) {
  GemmParts g;
  Kernel kernel = g.WithBody({
      For::Make(Var::Make("i"), Int(0), Int(4), ForKind::kSerial, Barrier::Make()),
      For::Make(Var::Make("i"), Int(0), Int(4), ForKind::kSerial, Barrier::Make(), kUserLoc),
  });
  EXPECT_TRUE(HasOneError(kernel, "'i' is already declared in this kernel"));
}

TEST(VerifierNamesTest, InvalidIdentifiers) {
  GemmParts g;
  for (const char* name : {"for", "1x", "a-b", "f32", ""}) {
    SCOPED_TRACE(name);
    EXPECT_TRUE(HasOneError(g.WithBody({LetAtUserLoc(Int(1), name)}),
                            absl::StrCat("'", name, "' is not a valid name")));
  }
}

}  // namespace
}  // namespace tile_ir
