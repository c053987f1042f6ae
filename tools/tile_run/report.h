// Text formatting for tile-run's reports: durations, shapes, check lines,
// throughput and aligned tables.
#ifndef TOOLS_TILE_RUN_REPORT_H_
#define TOOLS_TILE_RUN_REPORT_H_

#include <string>
#include <vector>

#include "ops/op_suite.h"
#include "tools/tile_run/compare.h"
#include "tools/tile_run/run_kernel.h"

namespace tile_ir::tools {

// "812 ns", "45.3 us", "1.23 ms", "2.50 s".
std::string FormatSeconds(double seconds);
// A number in 3 significant digits ("1.2e-06", "0.000244", "0"), "inf" or "nan".
std::string FormatError(double value);
// A value in up to 9 significant digits (enough to tell floats apart), "nan" or "inf".
std::string FormatValue(double value);
// "M=1000,N=777,K=333": the names in `order` first, in that order, then the rest by name.
std::string FormatShapes(const ops::Shapes& dims, const std::vector<std::string>& order = {});
// "C [normal]: max abs err 1.2e-06, max rel err 3.4e-05, worst at [3, 4] (got 0.5, want 0.5000012),
// 0 of 1000 mismatched, 0 NaN: PASS"
std::string FormatCheck(const OutputCheck& check);
// "median 1.23 ms over 20 launches, 54.2 GFLOP/s, 120 GB/s" (rates when known).
std::string FormatBench(const RunResult& result, int iters);

// Columns padded to their widest cell, two spaces apart, with a rule under the header.
std::string FormatTable(const std::vector<std::string>& header,
                        const std::vector<std::vector<std::string>>& rows);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_RUN_REPORT_H_
