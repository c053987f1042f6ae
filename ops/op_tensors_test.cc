// The harness helpers: shapes evaluate, inputs are seeded and rounded to
// their dtypes, and the tolerance check fails where it must.
#include "ops/op_tensors.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "ops/op_suite.h"
#include "tile_ir/dtype_rounding.h"

namespace tile_ir::ops {
namespace {

TEST(OpTensorsTest, EvaluatesShapeExpressions) {
  VarRef k = Var::Make("K");
  Expr half = Binary::Make(BinaryOp::kDiv, k, Int(2));
  Expr tiles = Binary::Make(BinaryOp::kCeilDiv, k, Int(64));
  EXPECT_EQ(*EvalShapeExpr(half, {{"K", 160}}), 80);
  EXPECT_EQ(*EvalShapeExpr(tiles, {{"K", 160}}), 3);
  absl::StatusOr<int64_t> unbound = EvalShapeExpr(half, {{"M", 1}});
  ASSERT_FALSE(unbound.ok());
  EXPECT_NE(unbound.status().message().find("'K'"), std::string::npos) << unbound.status();
}

TEST(OpTensorsTest, InputsAreSeededRoundedAndInRange) {
  const OpCase* op = FindOp("gemm_w4a16");
  ASSERT_NE(op, nullptr);
  absl::StatusOr<Kernel> kernel = op->build();
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  Shapes dims = {{"M", 3}, {"N", 5}, {"K", 64}};
  absl::StatusOr<RefTensors> a = MakeRefTensors(*op, **kernel, dims, 7, InputCase::kOpRanges);
  absl::StatusOr<RefTensors> b = MakeRefTensors(*op, **kernel, dims, 7, InputCase::kOpRanges);
  absl::StatusOr<RefTensors> c = MakeRefTensors(*op, **kernel, dims, 8, InputCase::kOpRanges);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a->at("A").data, b->at("A").data);
  EXPECT_NE(a->at("A").data, c->at("A").data);
  EXPECT_EQ(a->at("B").shape, (std::vector<int64_t>{5, 32}));
  EXPECT_EQ(a->at("Scale").shape, (std::vector<int64_t>{5, 2}));
  for (double v : a->at("A").data) {
    EXPECT_TRUE(v >= -1 && v <= 1) << v;
    EXPECT_EQ(v, RoundToDtype(v, kF16));
  }
  for (double v : a->at("B").data) EXPECT_TRUE(v >= 0 && v <= 255 && v == std::floor(v)) << v;
  for (double v : a->at("Scale").data) EXPECT_TRUE(v >= 0.004 && v <= 0.021) << v;
  for (double v : a->at("C").data) EXPECT_EQ(v, 0.0);
}

// Standard normal where the op draws uniform values, its integer codes untouched.
TEST(OpTensorsTest, NormalInputsKeepIntegerInitsAndAreSeeded) {
  const OpCase* op = FindOp("gemm_w4a16");
  ASSERT_NE(op, nullptr);
  absl::StatusOr<Kernel> kernel = op->build();
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  Shapes dims = {{"M", 64}, {"N", 64}, {"K", 64}};
  absl::StatusOr<RefTensors> a = MakeRefTensors(*op, **kernel, dims, 7, InputCase::kNormal);
  absl::StatusOr<RefTensors> b = MakeRefTensors(*op, **kernel, dims, 7, InputCase::kNormal);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->at("A").data, b->at("A").data);
  double sum = 0, squares = 0, beyond_one = 0;
  const std::vector<double>& values = a->at("A").data;
  for (double v : values) {
    EXPECT_EQ(v, RoundToDtype(v, kF16));
    sum += v;
    squares += v * v;
    beyond_one += std::abs(v) > 1;
  }
  const double n = static_cast<double>(values.size());
  // 4096 draws: the mean within 4 standard errors of 0, the variance near 1,
  // and about 32% beyond one standard deviation.
  EXPECT_NEAR(sum / n, 0, 4 / std::sqrt(n));
  EXPECT_NEAR(squares / n, 1, 0.1);
  EXPECT_NEAR(beyond_one / n, 0.317, 0.03);
  bool negative_scale = false;
  for (double v : a->at("Scale").data) negative_scale |= v < 0;
  EXPECT_TRUE(negative_scale);
  for (double v : a->at("B").data) EXPECT_TRUE(v >= 0 && v <= 255 && v == std::floor(v)) << v;
  EXPECT_EQ(DescribeInputs(*op, **kernel, InputCase::kNormal),
            "A, Scale N(0, 1); B integers in [0, 255]");
  EXPECT_EQ(DescribeInputs(*op, **kernel, InputCase::kOpRanges),
            "A uniform [-1, 1); B integers in [0, 255]; Scale uniform [0.005, 0.02)");
}

TEST(OpTensorsTest, CheckCloseFailsBeyondTheToleranceAndOnNan) {
  RefTensor want{{2, 2}, {1.0, -2.0, 100.0, 0.0}};
  RefTensor got = want;
  got.data[2] = 100.0 + 0.5;
  EXPECT_TRUE(CheckClose(got, want, 0, 0.01).ok());
  absl::Status tight = CheckClose(got, want, 0, 0.001);
  ASSERT_FALSE(tight.ok());
  EXPECT_NE(tight.message().find("[1, 0]"), std::string::npos) << tight;
  got.data[2] = want.data[2];
  got.data[3] = NAN;
  EXPECT_FALSE(CheckClose(got, want, 1e9, 1e9).ok());
  RefTensor other_shape{{4}, want.data};
  EXPECT_FALSE(CheckClose(other_shape, want, 1, 1).ok());
}

}  // namespace
}  // namespace tile_ir::ops
