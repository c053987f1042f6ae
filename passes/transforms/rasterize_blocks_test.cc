#include "passes/transforms/rasterize_blocks.h"

#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "gtest/gtest.h"
#include "passes/analysis/arith/int_math.h"
#include "tile_ir/printer.h"
#include "tile_ir/verifier.h"

namespace tile_ir::passes {
namespace {

// A tiny evaluator for the integer expressions the pass builds.
using Env = absl::flat_hash_map<const Var*, int64_t>;

std::optional<int64_t> Eval(const Expr& e, const Env& env) {
  if (std::optional<int64_t> value = AsConstInt(e)) return value;
  if (const Var* var = As<Var>(e)) {
    auto it = env.find(var);
    if (it == env.end()) return std::nullopt;
    return it->second;
  }
  if (const Cast* cast = As<Cast>(e)) return Eval(cast->value, env);
  if (const Binary* binary = As<Binary>(e)) {
    std::optional<int64_t> a = Eval(binary->a, env);
    std::optional<int64_t> b = Eval(binary->b, env);
    if (!a || !b) return std::nullopt;
    return arith::EvalIntBinary(binary->op, *a, *b, binary->a->dtype());
  }
  return std::nullopt;
}

Module Parse(const std::string& text) {
  absl::StatusOr<Module> module =
      text::ParseModule(absl::StrCat("ir_version 1;\nproducer \"t\" \"1\";\n\n", text), "t.tile");
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : Module{};
}

struct Rasterized {
  Kernel kernel;
  VarRef bx, by;  // the original grid variables
  VarRef M, N;    // the kernel's dimensions
};

Rasterized Rasterize(int64_t panel, absl::string_view order) {
  Module module =
      Parse(absl::StrCat("kernel k<M: i32, N: i32>(C: f32[M, N]) grid(bx: N, by: M) threads(1)"
                         " swizzle(panel=",
                         panel, ", order=", order, ") {\n  C[by, bx] = 1.0;\n}\n"));
  Kernel original = module.kernels.at(0);
  absl::StatusOr<bool> changed = RasterizeBlocks(module);
  EXPECT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  absl::Status valid = Verify(module);
  EXPECT_TRUE(valid.ok()) << valid << "\n" << Print(module);
  return {module.kernels.at(0), original->launch.grid[0].var, original->launch.grid[1].var,
          original->dims[0], original->dims[1]};
}

// Runs the kernel's lets for one block and returns the indices the store uses.
std::pair<int64_t, int64_t> BlockAt(const Rasterized& r, int64_t gx, int64_t gy, int64_t bx,
                                    int64_t by) {
  Env env = {{r.bx.get(), bx}, {r.by.get(), by}, {r.N.get(), gx}, {r.M.get(), gy}};
  const Seq* body = As<Seq>(r.kernel->body);
  EXPECT_NE(body, nullptr);
  for (const Stmt& s : body->stmts) {
    if (const Let* let = As<Let>(s)) {
      std::optional<int64_t> value = Eval(let->value, env);
      EXPECT_TRUE(value.has_value()) << Print(let->value);
      env[let->var.get()] = value.value_or(-1);
    } else if (const Store* store = As<Store>(s)) {
      return {Eval(store->indices[1], env).value_or(-1), Eval(store->indices[0], env).value_or(-1)};
    }
  }
  ADD_FAILURE() << "no store in\n" << Print(*r.kernel);
  return {-1, -1};
}

TEST(RasterizeBlocksTest, IsABijectionOnEveryGrid) {
  for (absl::string_view order : {"row", "column"}) {
    for (int64_t panel = 1; panel <= 5; ++panel) {
      Rasterized r = Rasterize(panel, order);
      for (int64_t gx = 1; gx <= 9; ++gx) {
        for (int64_t gy = 1; gy <= 9; ++gy) {
          std::set<std::pair<int64_t, int64_t>> seen;
          for (int64_t by = 0; by < gy; ++by) {
            for (int64_t bx = 0; bx < gx; ++bx) {
              auto [x, y] = BlockAt(r, gx, gy, bx, by);
              ASSERT_TRUE(x >= 0 && x < gx && y >= 0 && y < gy)
                  << order << " panel " << panel << " grid " << gx << "x" << gy << ": block (" << bx
                  << ", " << by << ") -> (" << x << ", " << y << ")";
              seen.emplace(x, y);
            }
          }
          EXPECT_EQ(seen.size(), static_cast<size_t>(gx * gy))
              << order << " panel " << panel << " grid " << gx << "x" << gy;
        }
      }
    }
  }
}

// Consecutive block ids walk down P rows of one column before the next column.
TEST(RasterizeBlocksTest, RowPanelsWalkColumnsOfPanelRows) {
  Rasterized r = Rasterize(2, "row");
  const int64_t gx = 3, gy = 3;
  std::vector<std::pair<int64_t, int64_t>> order;
  for (int64_t id = 0; id < gx * gy; ++id) order.push_back(BlockAt(r, gx, gy, id % gx, id / gx));
  std::vector<std::pair<int64_t, int64_t>> expected = {
      {0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 1},  // the panel of rows 0 and 1
      {0, 2}, {1, 2}, {2, 2},                          // the last panel has one row
  };
  EXPECT_EQ(order, expected);
}

TEST(RasterizeBlocksTest, ColumnPanelsWalkRowsOfPanelColumns) {
  Rasterized r = Rasterize(2, "column");
  const int64_t gx = 3, gy = 2;
  std::vector<std::pair<int64_t, int64_t>> order;
  for (int64_t id = 0; id < gx * gy; ++id) order.push_back(BlockAt(r, gx, gy, id % gx, id / gx));
  std::vector<std::pair<int64_t, int64_t>> expected = {
      {0, 0}, {1, 0}, {0, 1}, {1, 1},  // the panel of columns 0 and 1
      {2, 0}, {2, 1},                  // the last panel has one column
  };
  EXPECT_EQ(order, expected);
}

TEST(RasterizeBlocksTest, DropsTheAttributeAndKeepsOtherKernels) {
  Module module =
      Parse(R"(kernel one_axis(A: f32[64]) grid(bx: 8) threads(1) swizzle(panel=4, order=row) {
  A[bx] = 1.0;
}

kernel plain(A: f32[64]) grid(bx: 8, by: 8) threads(1) {
  A[bx + by] = 1.0;
}
)");
  Kernel plain = module.kernels[1];
  absl::StatusOr<bool> changed = RasterizeBlocks(module);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_FALSE(module.kernels[0]->launch.swizzle.has_value());
  EXPECT_EQ(Print(module.kernels[0]->body), "{\n  A[bx] = 1.0;\n}\n");
  EXPECT_EQ(module.kernels[1], plain);
}

TEST(RasterizeBlocksTest, NewNamesAvoidTakenOnes) {
  Module module =
      Parse(R"(kernel k(A: f32[64]) grid(bx: 8, by: 8) threads(1) swizzle(panel=2, order=row) {
  let raster_id: i32 = 3;
  let bx_raster: i32 = bx;
  A[raster_id + bx_raster + by] = 1.0;
}
)");
  ASSERT_TRUE(RasterizeBlocks(module).ok());
  absl::Status valid = Verify(module);
  EXPECT_TRUE(valid.ok()) << valid << "\n" << Print(module);
  std::string text = Print(module);
  EXPECT_NE(text.find("let raster_id_1: i32 = by * 8 + bx;"), std::string::npos) << text;
  EXPECT_NE(text.find("let bx_raster: i32 = bx_raster_1;"), std::string::npos) << text;
}

}  // namespace
}  // namespace tile_ir::passes
