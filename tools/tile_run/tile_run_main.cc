// tile-run's driver: the command line parsed into a request, then per run the stages in order:
// load -> values -> config -> plan -> compile -> run and report (each in its own file), on the
// device or JIT backend that --target opens, or on the target alone for --explain.
#include "tools/tile_run/tile_run_main.h"

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/common/cli.h"
#include "tools/tile_run/choose_module.h"
#include "tools/tile_run/dump_artifacts.h"
#include "tools/tile_run/file_run.h"
#include "tools/tile_run/load_kernel.h"
#include "tools/tile_run/obtain_kernel.h"
#include "tools/tile_run/report.h"
#include "tools/tile_run/resolve_values.h"
#include "tools/tile_run/run_and_report.h"
#include "tools/tile_run/run_kernel.h"
#include "tools/tile_run/run_request.h"
#include "tools/tile_run/specialize_for_run.h"
#include "tools/tile_run/suite_runner.h"

namespace tile_ir::tools {
namespace {

// Stages 2-4 for one run: the kernel loaded, its values resolved and checked, its config chosen
// and explained (and tuned). kGoOn with `input`, `options` and `files` ready to specialize.
int PrepareRun(const RunRequest& request, Compiler& compiler, const std::vector<ops::OpCase>& suite,
               LoadedInput& input, RunOptions& options, std::optional<FileTensors>& files,
               std::vector<std::string>& order, std::ostream& out, std::ostream& err,
               bool progress_bar) {
  int status = LoadKernel(request, suite, input, err);
  if (status == kGoOn) status = ResolveValues(request, input, options, files, err);
  // With files, the suite's operator of the same name lends nothing: no shapes, inputs or
  // reference.
  if (status == kGoOn && !files) status = MatchOperator(request, suite, input, err);
  if (status == kGoOn) status = MergeOperatorValues(request, input, options, err);
  if (status == kGoOn)
    status = CheckRunnable(request, input, compiler, files.has_value(), options, err);
  if (status == kGoOn) status = CheckTunable(request, input, compiler, suite, err);
  if (status != kGoOn) return status;
  for (const VarRef& dim : input.kernel->dims) order.push_back(dim->name);
  std::optional<runtime::jit::Config> given;  // --config's, which --explain explains
  status = ChooseModule(request, input, compiler, options, given, out, err);
  if (status == kGoOn)
    status = ExplainRun(request, input, compiler, options, order, given, out, err);
  if (status == kGoOn && request.autotune) {
    status = Autotune(request, *input.op, options, order, compiler, input.module, out, err,
                      progress_bar);
  }
  return status;
}

// Runs one kernel of a module file (or an operator): load, values, config, plan, obtain, run and
// report; returns the exit status.
int RunFile(const RunRequest& request, Compiler& compiler, const std::vector<ops::OpCase>& suite,
            std::ostream& out, std::ostream& err, bool progress_bar) {
  LoadedInput input;
  RunOptions options = request.base;
  std::optional<FileTensors> files;
  std::vector<std::string> order;
  if (int status = PrepareRun(request, compiler, suite, input, options, files, order, out, err,
                              progress_bar);
      status != kGoOn) {
    return status;
  }
  if (int status = SpecializeForRun(request, compiler, input.name, input.module, options, out, err);
      status != kGoOn) {
    return status;
  }
  absl::StatusOr<ObtainedKernel> obtained =
      ObtainKernel(request, compiler, input.module, input.name);
  if (!obtained.ok()) {
    err << "tile-run: error: " << request.path << ": " << obtained.status().message() << "\n";
    return 1;
  }
  runtime::Device& device = *compiler.device;
  if (request.dump_dir) {
    if (absl::Status dumped = DumpArtifacts(*obtained->loaded, device.name(), *request.dump_dir);
        !dumped.ok()) {
      err << "tile-run: error: " << dumped.message() << "\n";
      return 1;
    }
  }
  out << "kernel " << input.name << " from " << request.path << " on " << device.description()
      << "\n"
      << "  shapes  " << FormatShapes(options.dims, order) << "\n"
      << "  seed    " << options.seed << "\n";
  if (files) {
    out << "  cache   " << obtained->cache_line << "\n";
    return ReportFileRun(device, *obtained->loaded, *files, options, request.path, out, err);
  }
  return ReportRun(device, *obtained->loaded, input.op, options, obtained->cache_line, request.path,
                   out, err);
}

// Stage 3 onwards on a device: the JIT backend's where the binary has one, else a bare device's;
// --all checks the suite on the device.
int RunOnDevice(const RunRequest& request, const TileRunEnvironment& env,
                const std::vector<ops::OpCase>& suite, std::ostream& out, std::ostream& err) {
  Compiler compiler;
  compiler.target = request.target;
  if (!request.all && env.open_jit_backend) {
    absl::StatusOr<std::unique_ptr<runtime::jit::JitBackend>> backend =
        env.open_jit_backend(request.target);
    if (!backend.ok()) {
      err << "tile-run: error: --target=" << request.target << ": " << backend.status().message()
          << "\n";
      return 1;
    }
    compiler.backend = backend->get();
    compiler.target_object = &(*backend)->target();
    compiler.device = &(*backend)->device();
    compiler.cache = OpenCache(**backend, request, err);
    return RunFile(request, compiler, suite, out, err, env.progress_bar);
  }
  if (!env.open_device) {
    err << "tile-run: error: --target=" << request.target << ": no devices are available\n";
    return 1;
  }
  absl::StatusOr<std::unique_ptr<runtime::Device>> device = env.open_device(request.target);
  if (!device.ok()) {
    err << "tile-run: error: --target=" << request.target << ": " << device.status().message()
        << "\n";
    return 1;
  }
  if (request.all) {
    SuiteRunOptions suite_options;
    suite_options.seed = request.base.seed;
    suite_options.ragged = request.ragged;
    suite_options.bench = request.base.bench;
    suite_options.warmup = request.base.warmup;
    suite_options.iters = request.base.iters;
    suite_options.dump_dir = request.dump_dir.value_or("");
    return RunSuite(suite, **device, suite_options, out, err) ? 0 : 1;
  }
  compiler.device = device->get();
  return RunFile(request, compiler, suite, out, err, env.progress_bar);
}

}  // namespace

int TileRunMain(int argc, char** argv, std::ostream& out, std::ostream& err,
                const TileRunEnvironment& env) {
  static const std::vector<ops::OpCase> kNoOperators;
  const std::vector<ops::OpCase>& suite = env.suite ? *env.suite : kNoOperators;
  cli::ArgParser parser = MakeRunParser();
  if (absl::Status status = parser.Parse(argc, argv); !status.ok()) {
    err << "tile-run: error: " << status.message() << "\n";
    return 2;
  }
  if (parser.Has("help")) {
    out << parser.Help();
    return 0;
  }
  if (parser.Has("list")) {
    out << ListOperators(suite);
    return 0;
  }
  RunRequest request;
  if (int status = ParseRequest(parser, request, err); status != kGoOn) return status;
  // The target's name is checked first, by the one parser of target names, so that a bad option
  // is named as such whatever device would open it.
  std::shared_ptr<const targets::Target> resolved;
  if (env.resolve_target) {
    absl::StatusOr<std::shared_ptr<const targets::Target>> target =
        env.resolve_target(request.target);
    if (!target.ok()) {
      err << "tile-run: error: --target: " << target.status().message() << "\n";
      return 2;
    }
    resolved = *std::move(target);
  }
  if (!request.all && request.explain_only() && resolved != nullptr) {
    Compiler compiler;
    compiler.target = request.target;
    compiler.target_object = resolved.get();
    compiler.resolved = std::move(resolved);
    return RunFile(request, compiler, suite, out, err, env.progress_bar);
  }
  return RunOnDevice(request, env, suite, out, err);
}

}  // namespace tile_ir::tools
