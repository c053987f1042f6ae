// tile-run's run and report stages, on the suite's random inputs or on .npy files.
#include "tools/tile_run/run_and_report.h"

#include <ostream>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_join.h"
#include "ops/op_tensors.h"
#include "tools/tile_run/report.h"

namespace tile_ir::tools {

int ReportRun(runtime::Device& device, runtime::LoadedKernel& loaded, const ops::OpCase* op,
              const RunOptions& options, const std::string& cache_line, const std::string& path,
              std::ostream& out, std::ostream& err) {
  // The cases RunKernel runs: every one with --check, the first without. The kernel read may be
  // gone (--config and --autotune replace the module); the loaded one has its parameters.
  const ops::OpCase no_op{};
  for (ops::InputCase input_case : ops::kInputCases) {
    out << (input_case == ops::kInputCases[0] ? "  inputs  " : "          ")
        << ops::InputCaseName(input_case) << ": "
        << ops::DescribeInputs(op ? *op : no_op, loaded.signature(), input_case) << "\n";
    if (!options.check) break;
  }
  out << "  cache   " << cache_line << "\n";
  absl::StatusOr<RunResult> result = RunKernel(device, loaded, op, options);
  if (!result.ok()) {
    err << "tile-run: error: " << path << ": " << result.status().message() << "\n";
    return 1;
  }
  out << "  launch  " << FormatSeconds(result->launch_seconds) << "\n";
  for (const OutputCheck& check : result->checks) out << "  check   " << FormatCheck(check) << "\n";
  if (result->median_seconds) out << "  bench   " << FormatBench(*result, options.iters) << "\n";
  if (!options.check) {
    out << "ran (outputs not checked" << (op ? "; --check compares them" : "") << ")\n";
    return 0;
  }
  out << (result->passed() ? "PASS" : "FAIL") << " (rerun with --seed=" << options.seed << ")\n";
  return result->passed() ? 0 : 1;
}

int ReportFileRun(runtime::Device& device, runtime::LoadedKernel& loaded, const FileTensors& files,
                  const RunOptions& options, const std::string& path, std::ostream& out,
                  std::ostream& err) {
  std::vector<std::string> inputs;
  for (const auto& [name, buffer] : files.inputs) inputs.push_back(name);
  out << "  inputs  " << (inputs.empty() ? "none" : absl::StrJoin(inputs, ", ")) << " from files\n";
  absl::StatusOr<FileRunResult> result =
      RunOnFiles(device, loaded, files, options.scalars, options.integer_scalars);
  if (!result.ok()) {
    err << "tile-run: error: " << path << ": " << result.status().message() << "\n";
    return 1;
  }
  out << "  launch  " << FormatSeconds(result->launch_seconds) << "\n";
  for (const std::string& written : result->written) out << "  wrote   " << written << "\n";
  for (const OutputCheck& check : result->checks) {
    auto [rtol, atol] = files.tolerances.at(check.name);
    out << "  check   " << FormatCheck(check) << " (rtol " << FormatError(rtol) << ", atol "
        << FormatError(atol) << ")\n";
  }
  if (result->checks.empty()) {
    out << "ran (no --expect to compare with)\n";
    return 0;
  }
  out << (result->passed() ? "PASS" : "FAIL") << "\n";
  return result->passed() ? 0 : 1;
}

}  // namespace tile_ir::tools
