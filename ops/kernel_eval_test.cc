// Every kernel of the suite computes its reference within the op's
// tolerance, at default and ragged shapes, when run by the tile-level
// evaluator: the kernels are right before any backend sees them, and the
// tolerances are not too tight for a correct kernel. Operators no suite kernel
// uses yet get a kernel of their own.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/op_suite.h"
#include "ops/op_tensors.h"
#include "ops/tile_evaluator.h"
#include "tile_ir/buffer.h"
#include "tile_ir/expr.h"
#include "tile_ir/stmt.h"

namespace tile_ir::ops {
namespace {

constexpr uint64_t kSeed = 20261129;

class KernelEvalTest : public testing::TestWithParam<std::string> {};

// Logs the element with the largest |got - want| / (atol + rtol |want|): how
// much of its tolerance an op uses, so that tolerances can be judged.
void LogWorstElement(const std::string& what, const RefTensor& got, const RefTensor& want,
                     double atol, double rtol) {
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < got.data.size(); ++i) {
    double fraction = std::abs(got.data[i] - want.data[i]) / (atol + rtol * std::abs(want.data[i]));
    if (fraction > worst) {
      worst = fraction;
      at = i;
    }
  }
  std::printf("%s: worst error %.3g of the tolerance (element %zu: got %.9g, want %.9g)\n",
              what.c_str(), worst, at, got.data[at], want.data[at]);
}

void ExpectKernelMatchesReference(const OpCase& op, const Shapes& dims, InputCase input_case) {
  absl::StatusOr<Kernel> kernel = op.build();
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  absl::StatusOr<RefTensors> tensors = MakeRefTensors(op, **kernel, dims, kSeed, input_case);
  ASSERT_TRUE(tensors.ok()) << tensors.status();
  RefTensors want = *tensors;
  op.reference(want, dims, op.scalars);
  // Poisoned outputs: an element the kernel never writes stays NaN and fails.
  for (const std::string& output : op.outputs) {
    std::vector<double>& data = tensors->at(output).data;
    std::fill(data.begin(), data.end(), NAN);
  }
  absl::Status run = EvaluateKernel(**kernel, dims, op.scalars, *tensors);
  ASSERT_TRUE(run.ok()) << run;
  for (const std::string& output : op.outputs) {
    const RefTensor& got = tensors->at(output);
    absl::Status close = CheckClose(got, want.at(output), op.AtolAt(dims), op.rtol);
    const std::string what =
        absl::StrCat(op.name, " ", output, " [", InputCaseName(input_case), "]");
    EXPECT_TRUE(close.ok()) << what << " (seed " << kSeed << "): " << close;
    LogWorstElement(what, got, want.at(output), op.AtolAt(dims), op.rtol);
  }
}

TEST_P(KernelEvalTest, DefaultShapes) {
  const OpCase* op = FindOp(GetParam());
  ASSERT_NE(op, nullptr);
  for (InputCase input_case : kInputCases) {
    ExpectKernelMatchesReference(*op, op->default_shapes, input_case);
  }
}

TEST_P(KernelEvalTest, RaggedShapes) {
  const OpCase* op = FindOp(GetParam());
  ASSERT_NE(op, nullptr);
  for (InputCase input_case : kInputCases) {
    ExpectKernelMatchesReference(*op, op->ragged_shapes, input_case);
  }
}

// The evaluator's integer '^', on the 128-byte swizzle of an 8x64 tile: chunk c / 8 of row r
// goes to chunk c / 8 ^ r % 8.
TEST(TileEvaluatorTest, XorSwizzlesTheChunksOfEachRow) {
  auto op = [](BinaryOp op, Expr a, Expr b) {
    return Binary::Make(op, std::move(a), std::move(b));
  };
  Buffer a = BufferNode::Make("A", kF32, {Int(8), Int(64)}, MemoryScope::kGlobal);
  Buffer out = BufferNode::Make("Out", kF32, {Int(8), Int(64)}, MemoryScope::kGlobal);
  VarRef bx = Var::Make("bx"), r = Var::Make("r"), c = Var::Make("c");
  Expr chunk = op(BinaryOp::kXor, op(BinaryOp::kDiv, c, Int(8)), op(BinaryOp::kMod, r, Int(8)));
  Expr column =
      op(BinaryOp::kAdd, op(BinaryOp::kMul, chunk, Int(8)), op(BinaryOp::kMod, c, Int(8)));
  Stmt body = For::Make(r, Int(0), Int(8), ForKind::kParallel,
                        For::Make(c, Int(0), Int(64), ForKind::kParallel,
                                  Store::Make(out, {r, column}, BufferLoad::Make(a, {r, c}))));
  Launch launch;
  launch.grid = {{bx, Int(1)}};
  launch.threads = {64};
  Kernel kernel = KernelNode::Make("swizzle", {}, {{a, nullptr}, {out, nullptr}}, launch, body);
  RefTensors tensors{{"A", {{8, 64}, std::vector<double>(512)}},
                     {"Out", {{8, 64}, std::vector<double>(512, NAN)}}};
  for (int i = 0; i < 512; ++i) tensors["A"].data[i] = i;
  absl::Status run = EvaluateKernel(*kernel, {}, {}, tensors);
  ASSERT_TRUE(run.ok()) << run;
  for (int row = 0; row < 8; ++row) {
    for (int col = 0; col < 64; ++col) {
      EXPECT_EQ(tensors["Out"].data[row * 64 + ((col / 8) ^ row) * 8 + col % 8], row * 64 + col)
          << row << ", " << col;
    }
  }
}

std::vector<std::string> OpNames() {
  std::vector<std::string> names;
  for (const OpCase& op : OperatorSuite()) names.push_back(op.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Suite, KernelEvalTest, testing::ValuesIn(OpNames()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace tile_ir::ops
