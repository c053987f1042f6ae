// tile-run's values stage: the run's shapes, scalars and files resolved, and what the run needs
// checked.
#include "tools/tile_run/resolve_values.h"

#include <map>
#include <ostream>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_join.h"
#include "tools/common/assignments.h"
#include "tools/tile_run/run_values.h"

namespace tile_ir::tools {

int ResolveValues(const RunRequest& request, const LoadedInput& input, RunOptions& options,
                  std::optional<FileTensors>& files, std::ostream& err) {
  const KernelNode& kernel = *input.kernel;
  absl::StatusOr<ops::Shapes> given_dims = cli::ShapeValues(kernel, request.given.shapes);
  if (!given_dims.ok()) {
    err << "tile-run: error: " << given_dims.status().message() << "\n";
    return 2;
  }
  options.dims = *std::move(given_dims);
  if (absl::Status status =
          ScalarValues(kernel, request.given.scalars, options.scalars, options.integer_scalars);
      !status.ok()) {
    err << "tile-run: error: " << status.message() << "\n";
    return 2;
  }
  if (request.file_flags.any()) {
    absl::StatusOr<FileTensors> loaded = LoadFileTensors(kernel, request.file_flags, options.dims);
    if (!loaded.ok()) {
      err << "tile-run: error: " << request.path << ": " << loaded.status().message() << "\n";
      return 2;
    }
    files = *std::move(loaded);
  }
  return kGoOn;
}

int MergeOperatorValues(const RunRequest& request, const LoadedInput& input, RunOptions& options,
                        std::ostream& err) {
  const ops::OpCase* op = input.op;
  if (op == nullptr) {
    if (options.check) {
      err << "tile-run: error: no reference for kernel '" << input.name
          << "': --check needs an operator-suite entry (see --list)\n";
      return 2;
    }
    if (request.ragged) {
      err << "tile-run: error: kernel '" << input.name
          << "' has no operator-suite entry, so no ragged shapes; give --shapes\n";
      return 2;
    }
    return kGoOn;
  }
  if (request.ragged && op->ragged_shapes.empty()) {
    err << "tile-run: error: operator '" << input.name << "' has no ragged shapes\n";
    return 2;
  }
  ops::Shapes dims = request.ragged ? op->ragged_shapes : op->default_shapes;
  for (const auto& [dim, value] : options.dims) dims[dim] = value;  // --shapes wins
  options.dims = dims;
  std::map<std::string, double> scalars = op->scalars;
  for (const auto& [scalar, value] : options.scalars) scalars[scalar] = value;
  options.scalars = scalars;
  return kGoOn;
}

int CheckRunnable(const RunRequest& request, const LoadedInput& input, const Compiler& compiler,
                  bool with_files, const RunOptions& options, std::ostream& err) {
  for (const VarRef& dim : input.kernel->dims) {
    if (!options.dims.contains(dim->name)) {
      err << "tile-run: error: no value for dimension '" << dim->name << "' of kernel '"
          << input.name << "'" << (input.op ? "" : " (it is not in the operator suite)")
          << "; give it with --shapes " << dim->name << "=N\n";
      return 2;
    }
  }
  if (!with_files && compiler.device != nullptr) {
    // Before anything is allocated: the host copies and references the run will make.
    if (absl::Status memory = CheckHostMemory(*input.kernel, options.dims, PhysicalMemoryBytes());
        !memory.ok()) {
      err << "tile-run: error: " << request.path << ": " << memory.message() << "\n";
      return 2;
    }
  }
  return kGoOn;
}

int CheckTunable(const RunRequest& request, const LoadedInput& input, const Compiler& compiler,
                 const std::vector<ops::OpCase>& suite, std::ostream& err) {
  if (!request.autotune) return kGoOn;
  if (input.op == nullptr || input.op->config_space.candidates.empty()) {
    std::vector<std::string> tunable;
    for (const ops::OpCase& each : suite) {
      if (!each.config_space.candidates.empty()) tunable.push_back(each.name);
    }
    err << "tile-run: error: kernel '" << input.name << "' has no config space to tune"
        << " (operators with one: " << (tunable.empty() ? "none" : absl::StrJoin(tunable, ", "))
        << ")\n";
    return 2;
  }
  if (compiler.cache == nullptr) {
    err << "tile-run: error: --autotune needs a JIT backend for --target=" << compiler.target
        << ", which this binary lacks\n";
    return 2;
  }
  return kGoOn;
}

}  // namespace tile_ir::tools
