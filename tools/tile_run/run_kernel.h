// One tile-run: allocate a loaded kernel's tensors in the device's memory,
// fill the inputs with seeded random values, poison the outputs, launch, copy
// the outputs back, and optionally check them against the operator's float64
// reference and time repeated launches on the device's clock.
#ifndef TOOLS_TILE_RUN_RUN_KERNEL_H_
#define TOOLS_TILE_RUN_RUN_KERNEL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ops/op_suite.h"
#include "runtime/device_base.h"
#include "tools/tile_run/compare.h"

namespace tile_ir::tools {

struct RunOptions {
  ops::Shapes dims;  // a value for every dimension of the kernel, specialized ones included
  std::vector<std::string> specialized_dims;  // dims compiled in as constants (--static-shapes)
  std::map<std::string, double> scalars;      // a value for every scalar parameter
  // The values of integer scalar parameters given exactly (--scalars): the kernel gets these,
  // not the doubles above, which hold integers exactly only up to 2^53.
  std::map<std::string, int64_t> integer_scalars;
  uint64_t seed = 0;
  bool check = false;  // needs an operator entry
  bool bench = false;
  int warmup = 3;  // untimed launches before the timed ones
  int iters = 20;  // timed launches
};

struct RunResult {
  double launch_seconds = 0;  // the first launch
  // With RunOptions::check: every output for every input case (ops::kInputCases), in order.
  std::vector<OutputCheck> checks;
  std::optional<double> median_seconds;    // with RunOptions::bench
  std::optional<double> flops_per_second;  // with bench and the op's flops
  std::optional<double> bytes_per_second;  // with bench and the op's bytes

  bool passed() const;
};

// `kernel` was loaded by `device`, which allocates its tensors. With
// options.check, the kernel runs once per input case (standard normal, then
// the op's ranges; ops::InputCase), each on fresh data from options.seed with
// poisoned outputs, and every output of every case is checked; a bench times
// the last case's data. Without it, one run on normal inputs. `op` may be null
// for a kernel outside the operator suite: every buffer is then an input and
// nothing is poisoned or checked. Errors name what is missing or what failed
// (dims, scalars, allocation, copies, launch).
absl::StatusOr<RunResult> RunKernel(runtime::Device& device, runtime::LoadedKernel& kernel,
                                    const ops::OpCase* op, const RunOptions& options);
// The same for an operator of several kernels (ops::OpCase::build_stages), loaded in launch
// order: one set of tensors shared by parameter name, every stage launched in order per input
// case, the op's scratch poisoned like its outputs; a bench times all the stages together.
absl::StatusOr<RunResult> RunStages(runtime::Device& device,
                                    const std::vector<runtime::LoadedKernel*>& stages,
                                    const ops::OpCase* op, const RunOptions& options);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_RUN_RUN_KERNEL_H_
