// Every kernel of the suite computes its reference within the op's
// tolerance, at default and ragged shapes, when run at the tile level by the
// kernel interpreter: the kernels are right before any backend sees them, and
// the tolerances are not too tight for a correct kernel.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ops/op_suite.h"
#include "ops/op_tensors.h"
#include "tile_ir/kernel_interpreter.h"

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

// Runs `kernel`'s grid on `tensors` in place, reading past a tensor's edge as
// 0 and writing nothing there, as a tile-level kernel means it.
absl::Status EvaluateKernel(const KernelNode& kernel, const Shapes& dims,
                            const std::map<std::string, double>& scalars, RefTensors& tensors) {
  KernelInterpreter interpreter(KernelInterpreter::GlobalBounds::kPredicated);
  for (const auto& [name, value] : dims) interpreter.SetVar(name, static_cast<double>(value));
  for (const auto& [name, value] : scalars) interpreter.SetVar(name, value);
  for (auto& [name, tensor] : tensors) interpreter.SetBuffer(name, std::move(tensor.data));
  absl::Status run = interpreter.RunGrid(kernel);
  for (auto& [name, tensor] : tensors) tensor.data = interpreter.buffer(name);
  return run;
}

void ExpectKernelMatchesReference(const OpCase& op, const Shapes& dims, InputCase input_case) {
  absl::StatusOr<std::vector<Kernel>> kernels = OpKernels(op);
  ASSERT_TRUE(kernels.ok()) << kernels.status();
  std::vector<const KernelNode*> stages;
  for (const Kernel& kernel : *kernels) stages.push_back(kernel.get());
  absl::StatusOr<std::vector<Param>> params = StageParams(stages);
  ASSERT_TRUE(params.ok()) << params.status();
  absl::StatusOr<RefTensors> tensors = MakeRefTensors(op, *params, dims, kSeed, input_case);
  ASSERT_TRUE(tensors.ok()) << tensors.status();
  RefTensors want = *tensors;
  op.reference(want, dims, op.scalars);
  // Poisoned outputs and scratch: an element the kernels never write (or read before writing)
  // stays NaN and fails.
  for (auto& [name, tensor] : *tensors) {
    if (IsWrittenByOp(op, name)) std::fill(tensor.data.begin(), tensor.data.end(), NAN);
  }
  for (const Kernel& kernel : *kernels) {
    absl::Status run = EvaluateKernel(*kernel, dims, op.scalars, *tensors);
    ASSERT_TRUE(run.ok()) << kernel->name << ": " << run;
  }
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
