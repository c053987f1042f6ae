#include "passes/analysis/fragment_layout.h"

#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "passes/analysis/arith/expr_simplifier.h"
#include "tile_ir/printer.h"

namespace tile_ir::passes {
namespace {

// Evaluates a layout's outputs at constant indices.
std::vector<int64_t> At(const Layout& layout, const std::vector<int64_t>& index) {
  std::vector<Expr> indices;
  for (int64_t i : index) indices.push_back(Int(i));
  std::vector<int64_t> values;
  for (const Expr& e : ApplyLayout(layout, indices)) {
    std::optional<int64_t> value = AsConstInt(arith::SimplifyExpr(e));
    EXPECT_TRUE(value.has_value()) << Print(e);
    values.push_back(value.value_or(-1));
  }
  return values;
}

// Every element of a rows x cols tile; checks the layout is injective.
std::vector<std::vector<int64_t>> AllOf(const Layout& layout, int64_t rows, int64_t cols) {
  std::vector<std::vector<int64_t>> out;
  std::set<std::vector<int64_t>> seen;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      out.push_back(At(layout, {i, j}));
      EXPECT_TRUE(seen.insert(out.back()).second) << "(" << i << ", " << j << ") collides";
    }
  }
  return out;
}

TEST(FragmentLayoutTest, SingleThreadAndCyclic) {
  std::vector<Expr> shape = {Int(4), Int(8)};
  EXPECT_EQ(At(SingleThreadLayout(shape), {2, 3}), (std::vector<int64_t>{0, 19}));
  Layout cyclic = CyclicLayout(shape, 16);
  EXPECT_EQ(Print(cyclic.outputs[0]), "floormod(i * 8 + j, 16)");
  EXPECT_EQ(At(cyclic, {2, 3}), (std::vector<int64_t>{3, 1}));
  AllOf(cyclic, 4, 8);
}

TEST(FragmentLayoutTest, ThreadPerRowKeepsRowsInOneThread) {
  Layout layout = ThreadPerRowLayout({Int(6), Int(5)}, 1, 4);
  for (const auto& element : AllOf(layout, 6, 5)) EXPECT_LT(element[0], 4);
  for (int64_t i = 0; i < 6; ++i) {
    for (int64_t j = 0; j < 5; ++j) {
      EXPECT_EQ(At(layout, {i, j}), (std::vector<int64_t>{i % 4, (i / 4) * 5 + j}));
    }
  }
}

TEST(FragmentLayoutTest, ReducedAndExpandedAgreeWithTheirOrigin) {
  Layout src = CyclicLayout({Int(4), Int(8)}, 8);
  Layout dst = ReducedLayout(src, 1, /*keeps_dim=*/false);
  ASSERT_EQ(dst.inputs.size(), 1u);
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(At(dst, {i}), At(src, {i, 0}));
  Layout kept = ReducedLayout(src, 0, /*keeps_dim=*/true);
  for (int64_t j = 0; j < 8; ++j) EXPECT_EQ(At(kept, {0, j}), At(src, {0, j}));

  Layout rows = CyclicLayout({Int(6)}, 4);
  Layout expanded = ExpandedLayout(rows, 1, Int(5), /*dst_keeps_dim=*/false);
  AllOf(expanded, 6, 5);
  for (int64_t i = 0; i < 6; ++i) {
    for (int64_t j = 0; j < 5; ++j) {
      std::vector<int64_t> row = At(rows, {i});
      EXPECT_EQ(At(expanded, {i, j}), (std::vector<int64_t>{row[0], row[1] * 5 + j}));
    }
  }
}

TEST(FragmentLayoutTest, SameLayoutComparesByPosition) {
  Layout a = CyclicLayout({Int(4), Int(8)}, 16);
  EXPECT_TRUE(SameLayout(a, CopyLayout(a)));
  EXPECT_FALSE(SameLayout(a, CyclicLayout({Int(4), Int(8)}, 8)));
  EXPECT_FALSE(SameLayout(a, SingleThreadLayout({Int(32)})));
  EXPECT_TRUE(Mentions(a.outputs[0], a.inputs[1].get()));
  EXPECT_FALSE(Mentions(ThreadPerRowLayout({Int(4), Int(8)}, 1, 2).outputs[0], a.inputs[1].get()));
}

}  // namespace
}  // namespace tile_ir::passes
