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
  const ops::Shapes& dims = options.ragged ? op.ragged_shapes : op.default_shapes;
  Row row;
  row.cells = {op.name, FormatShapes(dims), "-", "-", "ERROR", "-"};
  if (options.ragged && dims.empty()) {
    row.error = "the operator has no ragged shapes";
    return row;
  }
  absl::StatusOr<Kernel> kernel = op.build();
  if (!kernel.ok()) {
    row.error = absl::StrCat("building the kernel: ", kernel.status().message());
    return row;
  }
  row.cells[1] = FormatShapes(dims, DimOrder(**kernel));
  Module module;
  module.producer = "tile-run";
  module.kernels = {*kernel};
  absl::StatusOr<std::unique_ptr<runtime::LoadedKernel>> loaded = device.Load(module, op.name);
  if (!loaded.ok()) {
    row.error = std::string(loaded.status().message());
    return row;
  }
  if (!options.dump_dir.empty()) {
    absl::Status dumped = DumpArtifacts(**loaded, device.name(), options.dump_dir);
    if (!dumped.ok()) {
      row.error = std::string(dumped.message());
      return row;
    }
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
    row.error = std::string(result.status().message());
    return row;
  }
  double max_abs = 0, max_rel = 0;
  for (const OutputCheck& check : result->checks) {
    max_abs = std::max(max_abs, check.max_abs_error);
    max_rel = std::max(max_rel, check.max_rel_error);
  }
  row.passed = result->passed();
  row.cells[2] = FormatError(max_abs);
  row.cells[3] = FormatError(max_rel);
  row.cells[4] = row.passed ? "PASS" : "FAIL";
  row.cells[5] = FormatSeconds(result->median_seconds.value_or(result->launch_seconds));
  if (!row.passed) {
    for (const OutputCheck& check : result->checks) {
      if (!check.passed())
        absl::StrAppend(&row.error, row.error.empty() ? "" : "\n    ", FormatCheck(check));
    }
  }
  return row;
}

}  // namespace

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
