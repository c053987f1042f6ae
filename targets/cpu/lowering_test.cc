// End to end from the tile level: the CPU target's whole compile
// (Target::CompileKernel: the CPU pipeline, then object code) linked as the CPU
// device links it, on ragged shapes.
#include <cmath>
#include <cstdint>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "frontends/text/parser.h"
#include "gtest/gtest.h"
#include "targets/cpu/cpu_compiler.h"
#include "targets/cpu/cpu_test_util.h"
#include "targets/cpu/float_reference.h"

namespace tile_ir::cpu {
namespace {

using test_util::HalfValue;
using test_util::NearestHalf;
using test_util::RunGrid;

absl::StatusOr<Module> ParseFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text::ParseModule(text.str(), path);
}

TEST(LoweringTest, TileLevelGemmRunsOnRaggedShapes) {
  absl::StatusOr<Module> module = ParseFile("testdata/examples/gemm.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  auto gemm = test_util::CompileKernel(*module, "gemm");
  ASSERT_TRUE(gemm.ok()) << gemm.status();
  int32_t m = 150, n = 131, k = 70;
  std::mt19937 random(3);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<uint16_t> a(m * k), b(k * n);
  for (uint16_t& v : a) v = NearestHalf(dist(random));
  for (uint16_t& v : b) v = NearestHalf(dist(random));
  std::vector<float> c(m * n, NAN);
  RunGrid((*gemm)->block_fn(), {a.data(), b.data(), c.data(), &m, &n, &k}, (n + 127) / 128,
          (m + 127) / 128, 1,
          /*threads=*/2);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double expected = 0;
      for (int p = 0; p < k; ++p)
        expected += double{HalfValue(a[i * k + p])} * HalfValue(b[p * n + j]);
      ASSERT_NEAR(c[i * n + j], expected, 1e-4) << i << "," << j;
    }
  }
}

TEST(LoweringTest, TileLevelSoftmaxRunsOnRaggedRows) {
  absl::StatusOr<Module> module = ParseFile("testdata/text/softmax.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  auto softmax = test_util::CompileKernel(*module, "softmax_rows");
  ASSERT_TRUE(softmax.ok()) << softmax.status();
  int32_t m = 21;
  std::mt19937 random(5);
  std::uniform_real_distribution<double> dist(-6, 6);
  std::vector<uint16_t> x(m * 1024), y(m * 1024);
  for (uint16_t& v : x) v = NearestHalf(dist(random));
  RunGrid((*softmax)->block_fn(), {x.data(), y.data(), &m}, (m + 15) / 16);
  for (int r = 0; r < m; ++r) {
    double top = -INFINITY, sum = 0;
    for (int j = 0; j < 1024; ++j) top = std::max(top, double{HalfValue(x[r * 1024 + j])});
    for (int j = 0; j < 1024; ++j) sum += std::exp(HalfValue(x[r * 1024 + j]) - top);
    for (int j = 0; j < 1024; ++j) {
      double expected = std::exp(HalfValue(x[r * 1024 + j]) - top) / sum;
      ASSERT_NEAR(HalfValue(y[r * 1024 + j]), expected, 2e-3 * expected + 1e-6) << r << "," << j;
    }
  }
}

TEST(LoweringTest, CustomPipelineAndItsErrors) {
  absl::StatusOr<Module> module = test_util::ParseTestdata("elementwise.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  CpuCompileOptions options;
  options.pipeline = "simplify,remove-dead-code";
  auto lowered = LowerForCpu(*module, options);
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  auto axpy = test_util::CompileLowered(*lowered, "axpy");
  EXPECT_TRUE(axpy.ok()) << axpy.status();
  options.pipeline = "simplfy";
  absl::Status status = LowerForCpu(*module, options).status();
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(absl::StrContains(status.message(), "did you mean 'simplify'")) << status;
}

}  // namespace
}  // namespace tile_ir::cpu
