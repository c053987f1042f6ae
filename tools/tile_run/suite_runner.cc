// The operator table of --list and the check-everything run of --all.
#include "tools/tile_run/suite_runner.h"

#include <algorithm>
#include <ostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ops/op_tensors.h"
#include "tile_ir/printer.h"
#include "tools/tile_run/autotune_op.h"
#include "tools/tile_run/dump_artifacts.h"
#include "tools/tile_run/report.h"
#include "tools/tile_run/run_kernel.h"
#include "tools/tile_run/signature.h"

namespace tile_ir::tools {
namespace {

std::vector<std::string> DimOrder(const KernelNode& kernel) {
  std::vector<std::string> order;
  for (const VarRef& dim : kernel.dims) order.push_back(dim->name);
  return order;
}

// An operator's lines of the table: one per input case, or one saying it did not run.
struct Rows {
  std::vector<std::vector<std::string>> cells;
  std::string error;  // empty when the operator ran and passed
  bool passed = false;
};

Rows RunOperator(const ops::OpCase& op, runtime::Device& device, const SuiteRunOptions& options) {
  OperatorCheck check = CheckOperator(op, device, options);
  Rows rows;
  if (!check.status.ok()) {
    rows.cells = {{op.name, check.shapes, "-", "-", "-", "ERROR", "-"}};
    rows.error = std::string(check.status.message());
    return rows;
  }
  const RunResult& result = check.result;
  rows.passed = check.passed();
  std::string time = FormatSeconds(result.median_seconds.value_or(result.launch_seconds));
  for (ops::InputCase input_case : ops::kInputCases) {
    const std::string name = ops::InputCaseName(input_case);
    double max_abs = 0, max_rel = 0;
    bool passed = true;
    for (const OutputCheck& output : result.checks) {
      if (output.inputs != name) continue;
      max_abs = std::max(max_abs, output.max_abs_error);
      max_rel = std::max(max_rel, output.max_rel_error);
      passed &= output.passed();
    }
    // The time is the operator's, so it goes on its first line only.
    rows.cells.push_back({op.name, check.shapes, name, FormatError(max_abs), FormatError(max_rel),
                          passed ? "PASS" : "FAIL", rows.cells.empty() ? time : ""});
  }
  for (const OutputCheck& output : result.checks) {
    if (!output.passed()) {
      absl::StrAppend(&rows.error, rows.error.empty() ? "" : "\n    ", FormatCheck(output));
    }
  }
  return rows;
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
  absl::StatusOr<std::vector<Kernel>> kernels = ops::OpKernels(op);
  if (!kernels.ok()) {
    check.status = absl::Status(kernels.status().code(),
                                absl::StrCat("building the kernel: ", kernels.status().message()));
    return check;
  }
  std::vector<std::string> order;
  for (const Kernel& kernel : *kernels) {
    for (const std::string& dim : DimOrder(*kernel)) {
      if (std::find(order.begin(), order.end(), dim) == order.end()) order.push_back(dim);
    }
  }
  check.shapes = FormatShapes(dims, order);
  // Each stage as a call of these shapes compiles it: the dims that size fragments compiled in,
  // the others symbolic with their divisibility classes where the target asks for them.
  std::vector<std::unique_ptr<runtime::LoadedKernel>> loaded;
  std::vector<std::string> compiled_in;
  for (const Kernel& kernel : *kernels) {
    absl::StatusOr<RunSpecialization> specialized =
        SpecializeAsRun(kernel, dims, /*static_shapes=*/false, device.target().info().get());
    if (!specialized.ok()) {
      check.status = specialized.status();
      return check;
    }
    for (const std::string& dim : specialized->compiled_in) {
      if (std::find(compiled_in.begin(), compiled_in.end(), dim) == compiled_in.end()) {
        compiled_in.push_back(dim);
      }
    }
    Module module;
    module.producer = "tile-run";
    module.kernels = {specialized->kernel};
    absl::StatusOr<std::unique_ptr<runtime::LoadedKernel>> stage =
        device.Load(module, kernel->name);
    if (!stage.ok()) {
      check.status = stage.status();
      return check;
    }
    if (!options.dump_dir.empty()) {
      check.status = DumpArtifacts(**stage, device.name(), options.dump_dir);
      if (!check.status.ok()) return check;
    }
    loaded.push_back(*std::move(stage));
  }
  std::vector<runtime::LoadedKernel*> stages;
  for (const auto& stage : loaded) stages.push_back(stage.get());
  RunOptions run;
  run.dims = dims;
  run.specialized_dims = compiled_in;
  run.scalars = op.scalars;
  run.seed = options.seed;
  run.check = true;
  run.bench = options.bench;
  run.warmup = options.warmup;
  run.iters = options.iters;
  absl::StatusOr<RunResult> result = RunStages(device, stages, &op, run);
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
  std::string text;
  for (const ops::OpCase& op : suite) {
    if (!text.empty()) text += "\n";
    absl::StatusOr<Kernel> kernel = op.build();
    if (!kernel.ok()) {
      absl::StrAppend(&text, op.name, "\n  error: building the kernel: ", kernel.status().message(),
                      "\n");
      continue;
    }
    const std::vector<std::string> order = DimOrder(**kernel);
    absl::StrAppend(&text, FormatSignature(**kernel), "\n");
    auto line = [&text](const std::string& key, const std::string& value) {
      absl::StrAppend(&text, "  ", key, ": ", value.empty() ? "none" : value, "\n");
    };
    line("description", op.description);
    if (op.build_stages) {
      absl::StatusOr<std::vector<Kernel>> stages = op.build_stages();
      std::vector<std::string> names;
      if (stages.ok()) {
        for (const Kernel& stage : *stages) names.push_back(stage->name);
      }
      line("stages", stages.ok() ? absl::StrJoin(names, ", ") : "error: building them");
      line("scratch", absl::StrJoin(op.scratch, ", "));
    }
    std::vector<std::string> requirements;
    for (const ShapeRequirement& requirement : (*kernel)->requirements) {
      requirements.push_back(Print(requirement.condition));
    }
    if (!requirements.empty()) line("requires", absl::StrJoin(requirements, "; "));
    line("default shapes", FormatShapes(op.default_shapes, order));
    line("ragged shapes", FormatShapes(op.ragged_shapes, order));
    std::vector<std::string> scalars;
    for (const auto& [name, value] : op.scalars) {
      scalars.push_back(absl::StrCat(name, "=", FormatValue(value)));
    }
    if (!scalars.empty()) line("scalars", absl::StrJoin(scalars, ","));
    line("outputs", absl::StrJoin(op.outputs, ", "));
    for (ops::InputCase input_case : ops::kInputCases) {
      line(absl::StrCat("inputs (", ops::InputCaseName(input_case), ")"),
           ops::DescribeInputs(op, **kernel, input_case));
    }
  }
  return text;
}

bool RunSuite(const std::vector<ops::OpCase>& suite, runtime::Device& device,
              const SuiteRunOptions& options, std::ostream& out, std::ostream& err) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> problems;
  int passed = 0;
  for (size_t i = 0; i < suite.size(); ++i) {
    err << "[" << i + 1 << "/" << suite.size() << "] " << suite[i].name << "\n";
    Rows op_rows = RunOperator(suite[i], device, options);
    if (op_rows.passed) ++passed;
    if (!op_rows.error.empty()) {
      problems.push_back(absl::StrCat("  ", suite[i].name, ": ", op_rows.error));
    }
    for (std::vector<std::string>& cells : op_rows.cells) rows.push_back(std::move(cells));
  }
  out << FormatTable({"op", "shapes", "inputs", "max abs err", "max rel err", "verdict",
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
