// tile-run's config stage: --config, the chosen default or stored tuning, --explain and
// --autotune.
#include "tools/tile_run/choose_module.h"

#include <chrono>
#include <ostream>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tools/tile_run/autotune_op.h"
#include "tools/tile_run/choose_config.h"
#include "tools/tile_run/explain_op.h"
#include "tools/tile_run/report.h"

namespace tile_ir::tools {
namespace {

// Replaces `module` by the operator's config named `config_name`, which `picked` receives;
// returns an exit status, kGoOn to go on. The config rebuilds the operator from the suite, so a
// kernel read that differs from the suite's is refused rather than silently replaced.
int PickConfig(const std::string& config_name, const LoadedInput& input, Module& module,
               runtime::jit::Config& picked, std::ostream& out, std::ostream& err) {
  const ops::OpCase* op = input.op;
  if (op == nullptr || op->config_space.candidates.empty()) {
    err << "tile-run: error: kernel '" << input.name << "' has no config space to pick '"
        << config_name << "' from\n";
    return 2;
  }
  if (!IsSuiteKernel(input)) {
    err << "tile-run: error: --config rebuilds operator '" << op->name
        << "' from the suite, and this kernel differs from the suite's; run the operator by "
           "name, or give the file without --config\n";
    return 2;
  }
  std::vector<std::string> names;
  for (const ops::OpConfig& candidate : op->config_space.candidates) {
    names.push_back(candidate.name);
    if (candidate.name != config_name) continue;
    absl::StatusOr<Module> built = BuildConfig(*op, candidate.values);
    if (!built.ok()) {
      err << "tile-run: error: " << built.status().message() << "\n";
      return 1;
    }
    module = *std::move(built);
    picked = runtime::jit::Config(candidate.values.begin(), candidate.values.end());
    out << "config  " << config_name << " of " << op->name << "'s space\n";
    return kGoOn;
  }
  err << "tile-run: error: operator '" << op->name << "' has no config '" << config_name
      << "'; its configs: " << absl::StrJoin(names, ", ") << "\n";
  return 2;
}

}  // namespace

int ChooseModule(const RunRequest& request, LoadedInput& input, Compiler& compiler,
                 const RunOptions& options, std::optional<runtime::jit::Config>& given,
                 std::ostream& out, std::ostream& err) {
  const ops::OpCase* op = input.op;
  if (request.config) {
    given.emplace();
    return PickConfig(*request.config, input, input.module, *given, out, err);
  }
  if (op == nullptr || op->config_space.candidates.empty() || request.autotune ||
      compiler.device == nullptr || !IsSuiteKernel(input)) {
    return kGoOn;
  }
  if (input.from_file) {
    out << "config  as written in " << request.path << " (--config=NAME or --autotune runs one of "
        << op->name << "'s configs)\n";
    return kGoOn;
  }
  ChosenConfig chosen = ChooseConfig(*op, options.dims, request.static_shapes, compiler.cache.get(),
                                     compiler.device->target());
  if (!chosen.own || chosen.tuned) {
    absl::StatusOr<Module> built = BuildConfig(*op, chosen.config);
    if (!built.ok()) {
      err << "tile-run: error: " << built.status().message() << "\n";
      return 1;
    }
    input.module = *std::move(built);
    out << "config  " << ConfigName(*op, chosen.config) << ": " << chosen.why << "\n";
  }
  if (chosen.tuned && request.explain) {
    out << "(--explain's default gives way to the tuned choice above)\n";
  }
  return kGoOn;
}

int ExplainRun(const RunRequest& request, const LoadedInput& input, const Compiler& compiler,
               const RunOptions& options, const std::vector<std::string>& order,
               const std::optional<runtime::jit::Config>& given, std::ostream& out,
               std::ostream& err) {
  if (!request.explain) return kGoOn;
  if (compiler.target_object == nullptr) {
    err << "tile-run: error: --explain: this binary cannot look up the target '" << compiler.target
        << "'\n";
    return 2;
  }
  const bool no_space = input.op == nullptr || input.op->config_space.candidates.empty();
  const bool as_written = no_space || (input.from_file && !given && !request.autotune);
  const std::string heading =
      no_space ? absl::StrCat("kernel '", input.name, "' has no config space: it runs as written")
               : absl::StrCat("kernel '", input.name, "' runs as written in ", request.path,
                              " (--config=NAME or --autotune runs one of its operator's configs)");
  const bool lowers = as_written
                          ? ExplainAsWritten(input.kernel, options.dims, request.static_shapes,
                                             *compiler.target_object, heading, out)
                          : Explain(*input.op, options.dims, order, request.static_shapes,
                                    *compiler.target_object, out, given ? &*given : nullptr);
  if (compiler.device != nullptr) return kGoOn;
  if (!lowers) {
    err << "tile-run: error: --explain: kernel '" << input.name << "' does not lower for "
        << compiler.target << " (the reason is above)\n";
    return 1;
  }
  return 0;
}

int Autotune(const RunRequest& request, const ops::OpCase& op, const RunOptions& options,
             const std::vector<std::string>& order, Compiler& compiler, Module& module,
             std::ostream& out, std::ostream& err, bool progress_bar) {
  AutotuneRequest tuning;
  tuning.dims = options.dims;
  tuning.scalars = options.scalars;
  tuning.integer_scalars = options.integer_scalars;
  tuning.seed = options.seed;
  tuning.warmup = options.warmup;
  tuning.iters = options.iters;
  tuning.retune = request.retune;
  tuning.static_shapes = request.static_shapes;
  if (progress_bar) {
    tuning.progress = [&err](int done, int total, const std::string& what) {
      err << runtime::jit::ProgressBar(done, total, what) << std::flush;
    };
  }
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<runtime::jit::TuningResult> result = AutotuneOp(*compiler.cache, op, tuning);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (progress_bar) err << "\r\x1b[K";
  if (!result.ok()) {
    err << "tile-run: error: " << result.status().message() << "\n";
    return 1;
  }
  const std::optional<runtime::jit::DiskCache>& disk = compiler.cache->disk();
  if (result->from_cache) {
    err << "autotune: " << op.name << ": the cached choice (key " << result->key << ")\n";
  } else {
    err << "autotune: " << op.name << ": " << result->candidates.size()
        << " candidates compiled, checked and timed in " << FormatSeconds(seconds) << "\n";
  }
  out << "autotune " << op.name << " at " << FormatShapes(options.dims, order) << " (checked at "
      << FormatShapes(TuningCheckShapes(*compiler.cache, op, tuning), order) << ") on "
      << result->device << ", " << result->date << (result->from_cache ? ", from the cache" : "")
      << "\n"
      << FormatTuningTable(op, *result, options.dims)
      << FormatCandidateRemarks(op, *result, options.dims, tuning.static_shapes,
                                compiler.backend->target())
      << "best " << ConfigName(op, result->best) << " ("
      << runtime::jit::ConfigToString(result->best) << "); "
      << (disk ? absl::StrCat(result->from_cache ? "read from " : "stored in ", disk->directory(),
                              " as ", result->key)
               : std::string("not stored: the disk cache is off"))
      << "\n";
  absl::StatusOr<Module> best = BuildConfig(op, result->best);
  if (!best.ok()) {
    err << "tile-run: error: " << best.status().message() << "\n";
    return 1;
  }
  module = *std::move(best);
  return kGoOn;
}

}  // namespace tile_ir::tools
