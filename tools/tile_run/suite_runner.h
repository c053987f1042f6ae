// tile-run's suite modes: --list prints the operator suite, --all checks
// every operator on one device (for every input case) and prints a result table.
#ifndef TOOLS_TILE_RUN_SUITE_RUNNER_H_
#define TOOLS_TILE_RUN_SUITE_RUNNER_H_

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/device_base.h"
#include "ops/op_suite.h"
#include "tools/tile_run/run_kernel.h"

namespace tile_ir::tools {

// One block per operator, blank lines between: its signature (the name a
// kernel is matched by, then the parameters it must share), then indented
// "key: value" lines (description, default shapes, ragged shapes, scalars,
// outputs, the inputs of each input case). Later facts about
// an operator go in as further "key: value" lines of its block.
std::string ListOperators(const std::vector<ops::OpCase>& suite);

struct SuiteRunOptions {
  uint64_t seed = 0;
  bool ragged = false;  // each operator's ragged_shapes instead of its default_shapes
  bool bench = false;   // the time column is then the median of `iters` launches
  int warmup = 3;
  int iters = 20;
  std::string dump_dir;  // when set, each kernel's artifacts go there (--dump-cubin)
};

// One operator built, loaded on a device, run and checked against its
// reference: a row of --all, and the evidence of tile-matrix's `verified`.
struct OperatorCheck {
  std::string shapes;  // "M=1000,N=777", in the kernel's dimension order
  // OK when the kernel ran, whatever its verdict; otherwise what failed:
  // building the kernel, loading (compiling) it, dumping its artifacts, running it.
  absl::Status status;
  RunResult result;  // when status is OK
  // The largest over the outputs.
  double max_abs_error = 0;
  double max_rel_error = 0;

  bool passed() const { return status.ok() && result.passed(); }
};

// Runs `op` at its default (options.ragged: its ragged) shapes with options.seed.
OperatorCheck CheckOperator(const ops::OpCase& op, runtime::Device& device,
                            const SuiteRunOptions& options);

// Builds, loads, runs and checks every operator; prints progress to `err` and
// the table, any errors and a summary to `out`. True when every operator passed.
bool RunSuite(const std::vector<ops::OpCase>& suite, runtime::Device& device,
              const SuiteRunOptions& options, std::ostream& out, std::ostream& err);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_RUN_SUITE_RUNNER_H_
