// RunOnDevice over tile-run's CheckOperator.
#include "tools/tile_matrix/device_run.h"

#include "absl/strings/str_cat.h"
#include "tools/tile_run/report.h"
#include "tools/tile_run/suite_runner.h"

namespace tile_ir::matrix {

absl::StatusOr<RunFigures> RunOnDevice(runtime::Device& device, const ops::OpCase& op,
                                       uint64_t seed) {
  tools::SuiteRunOptions options;
  options.seed = seed;
  tools::OperatorCheck check = tools::CheckOperator(op, device, options);
  if (!check.status.ok()) return check.status;
  RunFigures figures;
  figures.passed = check.passed();
  figures.max_abs_error = check.max_abs_error;
  figures.max_rel_error = check.max_rel_error;
  figures.shapes = check.shapes;
  for (const tools::OutputCheck& output : check.result.checks) {
    absl::StrAppend(&figures.report, tools::FormatCheck(output), "\n");
  }
  return figures;
}

}  // namespace tile_ir::matrix
