// Output comparison statistics and the report's formatting.
#include "tools/tile_run/report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "runtime/host_buffer.h"
#include "tools/tile_run/compare.h"

namespace tile_ir::tools {
namespace {

std::unique_ptr<runtime::HostBuffer> Buffer(std::vector<int64_t> shape,
                                            const std::vector<double>& values) {
  auto buffer = std::make_unique<runtime::HostBuffer>(kF64, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) buffer->Set(static_cast<int64_t>(i), values[i]);
  return buffer;
}

TEST(CompareOutputTest, StatisticsAndTheWorstElement) {
  std::unique_ptr<runtime::HostBuffer> got = Buffer({2, 3}, {1.0, 2.0, 3.5, 0.001, INFINITY, -4.0});
  ops::RefTensor want{{2, 3}, {1.0, 2.1, 3.0, 0.0, INFINITY, -4.0}};
  OutputCheck check = CompareOutput("C", *got, want, 0.01, 0.1);
  EXPECT_EQ(check.elements, 6);
  // 2.0 vs 2.1: error 0.1 <= 0.01 + 0.21; 3.5 vs 3: 0.5 > 0.31; 0.001 vs 0: fine.
  EXPECT_EQ(check.mismatches, 1);
  EXPECT_EQ(check.nans, 0);
  EXPECT_DOUBLE_EQ(check.max_abs_error, 0.5);
  EXPECT_DOUBLE_EQ(check.max_rel_error, 0.5 / 3.0);
  EXPECT_EQ(check.worst, 2);
  EXPECT_EQ(check.worst_got, 3.5);
  EXPECT_FALSE(check.passed());
  EXPECT_EQ(FormatCheck(check),
            "C: max abs err 0.5, max rel err 0.167, worst at [0, 2] (got 3.5, want 3), 1 of 6 "
            "mismatched, 0 NaN: FAIL");
}

TEST(CompareOutputTest, RelativeErrorIsAbsoluteBelowTheToleranceCrossover) {
  std::unique_ptr<runtime::HostBuffer> got = Buffer({3}, {1e-6, 0.5, 100.5});
  ops::RefTensor want{{3}, {2e-6, 0.0, 100.0}};
  // atol / rtol = 1: errors at references below 1 are divided by 1.
  EXPECT_DOUBLE_EQ(CompareOutput("Y", *got, want, 1e-3, 1e-3).max_rel_error, 0.5);
  // Without an rtol, zeros are left out and the rest is divided by |want|.
  EXPECT_DOUBLE_EQ(CompareOutput("Y", *got, want, 1.0, 0).max_rel_error, 0.5);
}

TEST(CompareOutputTest, NaNsMismatchUnlessTheReferenceIsNaN) {
  std::unique_ptr<runtime::HostBuffer> got = Buffer({3}, {NAN, 1.0, NAN});
  ops::RefTensor want{{3}, {1.0, 1.0, NAN}};
  OutputCheck check = CompareOutput("Y", *got, want, 0, 0);
  EXPECT_EQ(check.nans, 2);
  EXPECT_EQ(check.mismatches, 1);
  EXPECT_EQ(check.worst, 0);
  EXPECT_EQ(check.max_abs_error, 0);
  std::unique_ptr<runtime::HostBuffer> infinite = Buffer({1}, {INFINITY});
  ops::RefTensor finite{{1}, {1.0}};
  EXPECT_EQ(CompareOutput("Y", *infinite, finite, 1, 1).mismatches, 1);
}

TEST(CompareOutputTest, EmptyOutputPasses) {
  runtime::HostBuffer got(kF32, {0, 5});
  OutputCheck check = CompareOutput("Y", got, ops::RefTensor{{0, 5}, {}}, 0, 0);
  EXPECT_TRUE(check.passed());
  EXPECT_EQ(check.worst, -1);
  EXPECT_EQ(FormatCheck(check), "Y: max abs err 0, max rel err 0, 0 of 0 mismatched, 0 NaN: PASS");
  check.inputs = "normal";
  EXPECT_EQ(FormatCheck(check),
            "Y [normal]: max abs err 0, max rel err 0, 0 of 0 mismatched, 0 NaN: PASS");
}

TEST(ReportTest, Formats) {
  EXPECT_EQ(FormatIndex({4, 5, 6}, 1 * 30 + 2 * 6 + 3), "[1, 2, 3]");
  EXPECT_EQ(FormatSeconds(812e-9), "812 ns");
  EXPECT_EQ(FormatSeconds(45.34e-6), "45.3 us");
  EXPECT_EQ(FormatSeconds(1.234e-3), "1.23 ms");
  EXPECT_EQ(FormatSeconds(2.5), "2.50 s");
  EXPECT_EQ(FormatError(1.23456e-6), "1.23e-06");
  EXPECT_EQ(FormatError(NAN), "nan");
  EXPECT_EQ(FormatValue(-NAN), "nan");
  EXPECT_EQ(FormatValue(0.1f), "0.100000001");
  EXPECT_EQ(FormatShapes({{"K", 3}, {"M", 1}, {"N", 2}}, {"M", "N", "K"}), "M=1,N=2,K=3");
  EXPECT_EQ(FormatShapes({{"K", 3}, {"M", 1}}), "K=3,M=1");
  RunResult result;
  result.median_seconds = 2e-3;
  result.flops_per_second = 5e10;
  EXPECT_EQ(FormatBench(result, 20), "median 2.00 ms over 20 launches, 50 GFLOP/s");
  EXPECT_EQ(FormatTable({"op", "verdict"}, {{"gemm_f16", "PASS"}, {"add", "FAIL"}}),
            "op        verdict\n"
            "--------  -------\n"
            "gemm_f16  PASS\n"
            "add       FAIL\n");
  // Empty last cells leave no trailing spaces.
  EXPECT_EQ(
      FormatTable({"op", "inputs", "time"}, {{"add", "normal", "1 ms"}, {"add", "ranges", ""}}),
      "op   inputs  time\n"
      "---  ------  ----\n"
      "add  normal  1 ms\n"
      "add  ranges\n");
}

}  // namespace
}  // namespace tile_ir::tools
