// tile-run's suite modes: --list prints the operator suite, --all checks
// every operator on one device and prints a result table.
#ifndef TOOLS_TILE_RUN_SUITE_RUNNER_H_
#define TOOLS_TILE_RUN_SUITE_RUNNER_H_

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "runtime/device_base.h"
#include "testdata/ops/op_suite.h"

namespace tile_ir::tools {

// One row per operator: name, default shapes, ragged shapes, description.
std::string ListOperators(const std::vector<ops::OpCase>& suite);

struct SuiteRunOptions {
  uint64_t seed = 0;
  bool ragged = false;  // each operator's ragged_shapes instead of its default_shapes
  bool bench = false;   // the time column is then the median of `iters` launches
  int warmup = 3;
  int iters = 20;
  std::string dump_dir;  // when set, each kernel's artifacts go there (--dump-cubin)
};

// Builds, loads, runs and checks every operator; prints progress to `err` and
// the table, any errors and a summary to `out`. True when every operator passed.
bool RunSuite(const std::vector<ops::OpCase>& suite, runtime::Device& device,
              const SuiteRunOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_RUN_SUITE_RUNNER_H_
