// padded-reductions on the operator suite: every operator that reduces with max/min/prod or
// sums exp() masks its padding or divides its tiles, so a remark on one is a false alarm.
// (The positive cases are the golden tests, testdata/passes/padded-reductions/.)
#include "passes/analysis/padded_reductions.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "ops/op_suite.h"

namespace tile_ir::passes {
namespace {

void ExpectNoFinding(const absl::StatusOr<Kernel>& kernel, const std::string& what) {
  ASSERT_TRUE(kernel.ok()) << what << ": " << kernel.status();
  for (const PaddedReduction& finding : FindPaddedReductions(**kernel)) {
    ADD_FAILURE() << what << ": " << FormatPaddedReduction(finding);
  }
}

TEST(PaddedReductionsTest, NoOperatorOfTheSuiteGetsARemark) {
  int kernels = 0;
  for (const ops::OpCase& op : ops::OperatorSuite()) {
    absl::StatusOr<std::vector<Kernel>> stages = ops::OpKernels(op);
    ASSERT_TRUE(stages.ok()) << op.name << ": " << stages.status();
    for (const Kernel& stage : *stages) {
      ExpectNoFinding(stage, absl::StrCat(op.name, " (stage ", stage->name, ")"));
      ++kernels;
    }
    // Other tile sizes move the edges: every autotuning candidate too.
    for (const ops::OpConfig& config : op.config_space.candidates) {
      ExpectNoFinding(op.config_space.build(config.values),
                      absl::StrCat(op.name, " at ", config.name));
      ++kernels;
    }
  }
  EXPECT_GT(kernels, 50);
}

}  // namespace
}  // namespace tile_ir::passes
