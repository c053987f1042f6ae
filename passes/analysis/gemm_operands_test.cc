#include "passes/analysis/gemm_operands.h"

#include "gtest/gtest.h"
#include "tile_ir/printer.h"

namespace tile_ir::passes {
namespace {

Buffer Shared(std::vector<Expr> shape, std::vector<Expr> strides = {}, DataType dtype = kF16) {
  return BufferNode::Make("S", dtype, std::move(shape), MemoryScope::kShared, std::move(strides));
}

Buffer Accumulator(int64_t m, int64_t n) {
  return BufferNode::Make("C", kF32, {Int(m), Int(n)}, MemoryScope::kFragment);
}

const Gemm& AsGemm(const Stmt& stmt) { return static_cast<const Gemm&>(*stmt); }

TEST(GemmOperandsTest, SeesASliceOfAStageAsAMatrix) {
  Buffer stages = Shared({Int(2), Int(64), Int(32)});
  std::optional<SharedMatrix> m =
      AsSharedMatrix(Region{stages, {{Int(1), Int(1)}, {Int(0), Int(64)}, {Int(0), Int(32)}}}, 0);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->rows, 64);
  EXPECT_EQ(m->cols, 32);
  EXPECT_EQ(m->ld, 32);
  EXPECT_FALSE(
      AsSharedMatrix(Region{stages, {{Int(0), Int(2)}, {Int(0), Int(64)}, {Int(0), Int(32)}}}, 0));
  EXPECT_FALSE(
      AsSharedMatrix(Region{stages, {{Int(0), Int(1)}, {Int(0), Int(64)}, {Int(0), Int(16)}}}, 0));
  Buffer global = BufferNode::Make("G", kF16, {Int(64), Int(32)}, MemoryScope::kGlobal);
  EXPECT_FALSE(AsSharedMatrix(Region::Full(global), 16));
}

TEST(GemmOperandsTest, AcceptsPaddedRowsOnlyWhenAligned) {
  Buffer padded = Shared({Int(64), Int(32)}, {Int(40), Int(1)});  // 80-byte rows
  EXPECT_FALSE(AsSharedMatrix(Region::Full(padded), 0));
  ASSERT_TRUE(AsSharedMatrix(Region::Full(padded), 16).has_value());
  EXPECT_EQ(AsSharedMatrix(Region::Full(padded), 16)->ld, 40);
  EXPECT_FALSE(AsSharedMatrix(Region::Full(padded), 32));
  Buffer misaligned = Shared({Int(64), Int(32)}, {Int(36), Int(1)});  // 72-byte rows
  EXPECT_FALSE(AsSharedMatrix(Region::Full(misaligned), 16));
}

TEST(GemmOperandsTest, MatchesShapesThroughTranspositions) {
  Buffer a = Shared({Int(32), Int(64)});   // K x M, transposed
  Buffer b = Shared({Int(128), Int(32)});  // N x K, transposed
  Stmt gemm = Gemm::Make(Region::Full(a), Region::Full(b), Region::Full(Accumulator(64, 128)),
                         /*transpose_a=*/true, /*transpose_b=*/true);
  std::optional<GemmOperands> operands = MatchGemmOperands(AsGemm(gemm), 0);
  ASSERT_TRUE(operands.has_value());
  EXPECT_EQ(operands->m, 64);
  EXPECT_EQ(operands->n, 128);
  EXPECT_EQ(operands->k, 32);
  EXPECT_EQ(operands->a.rows, 32);

  Stmt untransposed =
      Gemm::Make(Region::Full(a), Region::Full(b), Region::Full(Accumulator(64, 128)));
  EXPECT_FALSE(MatchGemmOperands(AsGemm(untransposed), 0));
  Stmt refused =
      Gemm::Make(Region::Full(a), Region::Full(b), Region::Full(Accumulator(64, 128)), true, true);
  EXPECT_FALSE(MatchGemmOperands(AsGemm(refused),
                                 [](const Region&) { return std::optional<SharedMatrix>(); }));
}

TEST(GemmOperandsTest, SplitsWarpsPerPolicy) {
  using Split = std::optional<std::pair<int64_t, int64_t>>;
  EXPECT_EQ(SplitWarps(WarpPolicy::kSquare, 4, 128, 128, 16, 8), Split({2, 2}));
  EXPECT_EQ(SplitWarps(WarpPolicy::kSquare, 2, 64, 64, 16, 8), Split({2, 1}));
  EXPECT_EQ(SplitWarps(WarpPolicy::kFullRow, 4, 64, 8, 16, 8), Split({4, 1}));
  EXPECT_EQ(SplitWarps(WarpPolicy::kFullRow, 8, 64, 8, 16, 8), std::nullopt);
  EXPECT_EQ(SplitWarps(WarpPolicy::kFullCol, 4, 16, 32, 16, 8), Split({1, 4}));
  EXPECT_EQ(SplitWarps(WarpPolicy::kSquare, 3, 32, 32, 32, 32), std::nullopt);
  EXPECT_EQ(
      SplitWarps(WarpPolicy::kSquare, 4, 256, 64, [](int64_t, int64_t wn) { return wn == 1; }),
      Split({4, 1}));
}

TEST(GemmOperandsTest, ComparesFragmentLayoutsByValue) {
  Layout row_major;
  row_major.inputs = {Var::Make("i"), Var::Make("j")};
  row_major.outputs = {Binary::Make(BinaryOp::kFloorMod, row_major.inputs[1], Int(4)),
                       Binary::Make(BinaryOp::kFloorDiv, row_major.inputs[1], Int(4))};
  Layout same;
  same.inputs = {Var::Make("x"), Var::Make("y")};
  same.outputs = {
      Binary::Make(BinaryOp::kSub, same.inputs[1],
                   Binary::Make(BinaryOp::kMul,
                                Binary::Make(BinaryOp::kFloorDiv, same.inputs[1], Int(4)), Int(4))),
      Binary::Make(BinaryOp::kFloorDiv, same.inputs[1], Int(4))};
  Buffer fragment = BufferNode::Make("F", kF32, {Int(1), Int(8)}, MemoryScope::kFragment, {}, same);
  EXPECT_TRUE(HasFragmentLayout(*fragment, row_major, 1, 8));
  Buffer bare = BufferNode::Make("F", kF32, {Int(1), Int(8)}, MemoryScope::kFragment);
  EXPECT_FALSE(HasFragmentLayout(*bare, row_major, 1, 8));
}

TEST(GemmOperandsTest, NamesFirstElementsAndLaunchThreads) {
  Buffer s = Shared({Int(2), Int(8), Int(8)});
  Expr first = FirstElement(Region{s, {{Int(1), Int(1)}, {Int(0), Int(8)}, {Int(0), Int(8)}}});
  const BufferLoad* load = As<BufferLoad>(first);
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(AsConstInt(load->indices[0]), 1);
  EXPECT_EQ(AsConstInt(load->indices[2]), 0);

  Launch launch{{{Var::Make("bx"), Int(1)}}, {32, 4}, {}, std::nullopt};
  EXPECT_EQ(LaunchThreads(*KernelNode::Make("k", {}, {}, launch, Seq::Make({}))), 128);
}

TEST(GemmOperandsTest, TileGemmCallPassesFirstElementsShapeGridFlagsAndExtras) {
  Buffer a = Shared({Int(2), Int(64), Int(32)});
  Buffer b = Shared({Int(32), Int(128)});
  Stmt gemm = Gemm::Make(Region{a, {{Int(1), Int(1)}, {Int(0), Int(64)}, {Int(0), Int(32)}}},
                         Region::Full(b), Region::Full(Accumulator(64, 128)), false, true,
                         WarpPolicy::kSquare, true);
  Stmt call = TileGemmCall(AsGemm(gemm), "lib.gemm", 64, 128, 32, 2, 2, {Int(40)});
  EXPECT_EQ(Print(call),
            "eval lib.gemm(S[1, 0, 0], S[0, 0], C[0, 0], 64, 128, 32, 2, 2, false, true, true, "
            "40);\n");
}

}  // namespace
}  // namespace tile_ir::passes
