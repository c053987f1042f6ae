#include "passes/analysis/lane_reduction.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "passes/analysis/fragment_layout.h"
#include "passes/analysis/fragment_threads.h"

namespace tile_ir::passes {
namespace {

Expr Add(Expr a, Expr b) { return Binary::Make(BinaryOp::kAdd, a, b); }
Expr Mul(Expr a, int64_t b) { return Binary::Make(BinaryOp::kMul, a, Int(b)); }
Expr Div(Expr a, int64_t b) { return Binary::Make(BinaryOp::kFloorDiv, a, Int(b)); }
Expr Mod(Expr a, int64_t b) { return Binary::Make(BinaryOp::kFloorMod, a, Int(b)); }

// A 64 x 64 tile on 128 threads laid out as an m64n64 warpgroup accumulator: rows across the
// four lanes (l % 4) of a lane group, as mma.sync and wgmma keep them.
Layout AccumulatorLayout() {
  Layout layout;
  VarRef i = Var::Make("i");
  VarRef j = Var::Make("j");
  layout.inputs = {i, j};
  layout.outputs = {Add(Add(Mul(Div(i, 16), 32), Mul(Mod(i, 8), 4)), Div(Mod(j, 8), 2)),
                    Add(Add(Mul(Div(j, 8), 4), Mul(Div(Mod(i, 16), 8), 2)), Mod(j, 2))};
  return layout;
}

int64_t ThreadAt(const Layout& layout, std::vector<int64_t> index, int64_t replica) {
  IntEnv env;
  for (size_t d = 0; d < index.size(); ++d) env[layout.inputs[d].get()] = index[d];
  if (layout.replica) env[layout.replica.get()] = replica;
  return *EvaluateInt(layout.outputs[0], env);
}

TEST(LaneReplicatedReducedLayoutTest, ReplicatesARowMaxOverTheFourLanesOfEachRow) {
  std::optional<Layout> reduced =
      LaneReplicatedReducedLayout(AccumulatorLayout(), {64, 64}, 1, false, 32, 128);
  ASSERT_TRUE(reduced);
  ASSERT_TRUE(reduced->replicated());
  EXPECT_EQ(reduced->replicate, 4);
  // Row 17 lives on lanes 4 * 1 + {0, 1, 2, 3} of warp 1, every copy in one register.
  for (int64_t r = 0; r < 4; ++r) EXPECT_EQ(ThreadAt(*reduced, {17}, r), 32 + 4 + r);
  Buffer dst = BufferNode::Make("row_max", kF32, {Int(64)}, MemoryScope::kFragment, {}, *reduced);
  absl::StatusOr<int64_t> registers = RegistersPerThread(*dst, 128);
  ASSERT_TRUE(registers.ok()) << registers.status();
  EXPECT_EQ(*registers, 3);  // rows r and r + 8 of a lane group, at registers 0 and 2
}

TEST(LaneReplicatedReducedLayoutTest, RowsOnOneThreadOrSpreadOtherwiseAreNotReplicated) {
  // Each row on one thread: nothing to replicate.
  EXPECT_FALSE(LaneReplicatedReducedLayout(ThreadPerRowLayout({Int(256), Int(8)}, 1, 128),
                                           {256, 8}, 1, false, 32, 128));
  // Rows whose threads differ in other bits from row to row: thread(d, 0) + masks fails.
  EXPECT_FALSE(LaneReplicatedReducedLayout(CyclicLayout({Int(3), Int(48)}, 128), {3, 48}, 1,
                                           false, 32, 128));
}

TEST(LaneReplicatedReducedLayoutTest, RowsAcrossWarpsAreReplicatedOverThem) {
  // Cyclic over 128 threads, 64 columns a row: row d on threads 64 * (d % 2) + {0..63}.
  std::optional<Layout> reduced = LaneReplicatedReducedLayout(
      CyclicLayout({Int(4), Int(64)}, 128), {4, 64}, 1, false, 32, 128);
  ASSERT_TRUE(reduced);
  EXPECT_EQ(reduced->replicate, 64);
  for (int64_t r = 0; r < 64; r += 21) EXPECT_EQ(ThreadAt(*reduced, {3}, r), 64 + r);
}

TEST(PlanLaneReductionTest, RowsAcrossWarpsShuffleThenJoinTheWarps) {
  Layout source = CyclicLayout({Int(4), Int(64)}, 128);
  std::optional<Layout> reduced = LaneReplicatedReducedLayout(source, {4, 64}, 1, false, 32, 128);
  ASSERT_TRUE(reduced);
  Buffer src = BufferNode::Make("S", kF32, {Int(4), Int(64)}, MemoryScope::kFragment, {}, source);
  Buffer dst = BufferNode::Make("m", kF32, {Int(4)}, MemoryScope::kFragment, {}, *reduced);
  std::optional<LaneReductionPlan> plan = PlanLaneReduction(*src, *dst, 1, 128, 32);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->lane_masks, (std::vector<int64_t>{1, 2, 4, 8, 16}));
  EXPECT_EQ(plan->warp_masks, (std::vector<int64_t>{32}));
  ASSERT_EQ(plan->registers.size(), 2u);
  EXPECT_EQ(plan->registers[0].second, (std::vector<int64_t>{0}));
  EXPECT_EQ(plan->registers[1].second, (std::vector<int64_t>{1}));
}

TEST(PlanLaneReductionTest, EveryThreadCombinesSixteenRegistersThenTwoShuffles) {
  Layout source = AccumulatorLayout();
  std::optional<Layout> reduced = LaneReplicatedReducedLayout(source, {64, 64}, 1, false, 32, 128);
  ASSERT_TRUE(reduced);
  Buffer src =
      BufferNode::Make("S", kF32, {Int(64), Int(64)}, MemoryScope::kFragment, {}, source);
  Buffer dst = BufferNode::Make("m", kF32, {Int(64)}, MemoryScope::kFragment, {}, *reduced);
  std::optional<LaneReductionPlan> plan = PlanLaneReduction(*src, *dst, 1, 128, 32);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->lane_masks, (std::vector<int64_t>{1, 2}));
  ASSERT_EQ(plan->registers.size(), 2u);
  EXPECT_EQ(plan->registers[0].first, 0);
  EXPECT_EQ(plan->registers[0].second,
            (std::vector<int64_t>{0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29}));
  EXPECT_EQ(plan->registers[1].first, 2);
  EXPECT_EQ(plan->registers[1].second.size(), 16u);
  // A destination laid out where each row's first element lives is not a lane reduction's.
  Buffer unreplicated = BufferNode::Make("m1", kF32, {Int(64)}, MemoryScope::kFragment, {},
                                         ReducedLayout(source, 1, false));
  EXPECT_FALSE(PlanLaneReduction(*src, *unreplicated, 1, 128, 32));
  // Lanes wider than a warp (of 2, say) join through shared memory.
  std::optional<LaneReductionPlan> across = PlanLaneReduction(*src, *dst, 1, 128, 2);
  ASSERT_TRUE(across);
  EXPECT_EQ(across->lane_masks, (std::vector<int64_t>{1}));
  EXPECT_EQ(across->warp_masks, (std::vector<int64_t>{2}));
}

}  // namespace
}  // namespace tile_ir::passes
