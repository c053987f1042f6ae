// The operator table of --list and the check-everything run of --all.
#include "tools/tile_run/suite_runner.h"

#include <algorithm>
#include <ostream>

#include "absl/strings/str_cat.h"
#include "tools/tile_run/dump_artifacts.h"
#include "tools/tile_run/report.h"
#include "tools/tile_run/run_kernel.h"

namespace tile_ir::tools {
namespace {

std::vector<std::string> DimOrder(const KernelNode& kernel) {
  std::vector<std::string> order;
  for (const VarRef& dim : kernel.dims) order.push_back(dim->name);
  return order;
}

struct Row {
  std::vector<std::string> cells;
  std::string error;  // empty when the operator ran
  bool passed = false;
};

Row RunOperator(const ops::OpCase& op, runtime::Device& device, const SuiteRunOptions& options) {
  OperatorCheck check = CheckOperator(op, device, options);
  Row row;
  row.cells = {op.name, check.shapes, "-", "-", "ERROR", "-"};
  if (!check.status.ok()) {
    row.error = std::string(check.status.message());
    return row;
  }
  const RunResult& result = check.result;
  row.passed = check.passed();
  row.cells[2] = FormatError(check.max_abs_error);
  row.cells[3] = FormatError(check.max_rel_error);
  row.cells[4] = row.passed ? "PASS" : "FAIL";
  row.cells[5] = FormatSeconds(result.median_seconds.value_or(result.launch_seconds));
  if (!row.passed) {
    for (const OutputCheck& output : result.checks) {
      if (!output.passed())
        absl::StrAppend(&row.error, row.error.empty() ? "" : "\n    ", FormatCheck(output));
    }
  }
  return row;
}

}  // namespace

OperatorCheck CheckOperator(const ops::OpCase& op, runtime::Device& device,
                            const SuiteRunOptions& options) {
  const ops::Shapes& dims = options.ragged ? op.ragged_shapes : op.default_shapes;
  OperatorCheck check;
  check.shapes = FormatShapes(dims);
  if (options.ragged && dims.empty()) {
    check.status = absl::FailedPreconditionError("the operator has no ragged shapes");
    return check;
  }
  absl::StatusOr<Kernel> kernel = op.build();
  if (!kernel.ok()) {
    check.status = absl::Status(kernel.status().code(),
                                absl::StrCat("building the kernel: ", kernel.status().message()));
    return check;
  }
  check.shapes = FormatShapes(dims, DimOrder(**kernel));
  Module module;
  module.producer = "tile-run";
  module.kernels = {*kernel};
  absl::StatusOr<std::unique_ptr<runtime::LoadedKernel>> loaded = device.Load(module, op.name);
  if (!loaded.ok()) {
    check.status = loaded.status();
    return check;
  }
  if (!options.dump_dir.empty()) {
    check.status = DumpArtifacts(**loaded, device.name(), options.dump_dir);
    if (!check.status.ok()) return check;
  }
  RunOptions run;
  run.dims = dims;
  run.scalars = op.scalars;
  run.seed = options.seed;
  run.check = true;
  run.bench = options.bench;
  run.warmup = options.warmup;
  run.iters = options.iters;
  absl::StatusOr<RunResult> result = RunKernel(device, **loaded, &op, run);
  if (!result.ok()) {
    check.status = result.status();
    return check;
  }
  check.result = *std::move(result);
  for (const OutputCheck& output : check.result.checks) {
    check.max_abs_error = std::max(check.max_abs_error, output.max_abs_error);
    check.max_rel_error = std::max(check.max_rel_error, output.max_rel_error);
  }
  return check;
}

std::string ListOperators(const std::vector<ops::OpCase>& suite) {
  std::vector<std::vector<std::string>> rows;
  for (const ops::OpCase& op : suite) {
    rows.push_back(
        {op.name, FormatShapes(op.default_shapes), FormatShapes(op.ragged_shapes), op.description});
  }
  return FormatTable({"op", "default shapes", "ragged shapes", "description"}, rows);
}

bool RunSuite(const std::vector<ops::OpCase>& suite, runtime::Device& device,
              const SuiteRunOptions& options, std::ostream& out, std::ostream& err) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> problems;
  int passed = 0;
  for (size_t i = 0; i < suite.size(); ++i) {
    err << "[" << i + 1 << "/" << suite.size() << "] " << suite[i].name << "\n";
    Row row = RunOperator(suite[i], device, options);
    if (row.passed) ++passed;
    if (!row.error.empty()) problems.push_back(absl::StrCat("  ", suite[i].name, ": ", row.error));
    rows.push_back(std::move(row.cells));
  }
  out << FormatTable({"op", "shapes", "max abs err", "max rel err", "verdict",
                      options.bench ? "median time" : "time"},
                     rows);
  if (!problems.empty()) {
    out << "\nproblems:\n";
    for (const std::string& problem : problems) out << problem << "\n";
  }
  out << "\n"
      << passed << " of " << suite.size() << " operators passed on " << device.description()
      << " (seed " << options.seed << ")\n";
  return passed == static_cast<int>(suite.size());
}

}  // namespace tile_ir::tools
