// Candidates checked at small shapes, timed at the run's, and their table.
#include "tools/tile_run/autotune_op.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "frontends/cpp/builder.h"
#include "passes/analysis/int_eval.h"
#include "passes/transforms/specialize_divisibility.h"
#include "runtime/jit/specialization_plan.h"
#include "tile_ir/visitor.h"
#include "tools/tile_run/report.h"
#include "tools/tile_run/run_kernel.h"

namespace tile_ir::tools {

using runtime::jit::Config;
using runtime::jit::TuningParam;
using runtime::jit::TuningResult;

runtime::jit::ConfigSpace ToJitSpace(const ops::OpConfigSpace& space) {
  runtime::jit::ConfigSpace jit_space;
  for (const ops::TunableParam& param : space.params) {
    TuningParam each;
    each.name = param.name;
    each.kind = param.kind == ops::TunableParam::Kind::kStages ? TuningParam::Kind::kStages
                                                               : TuningParam::Kind::kTile;
    each.values = param.values;
    each.default_value = param.default_value;
    each.covers = param.covers;
    jit_space.params.push_back(std::move(each));
  }
  for (const ops::OpConfig& candidate : space.candidates) {
    jit_space.candidates.push_back(Config(candidate.values.begin(), candidate.values.end()));
  }
  return jit_space;
}

ops::Shapes CheckShapes(const ops::Shapes& dims, int64_t max_divisor) {
  ops::Shapes small;
  for (const auto& [name, value] : dims) {
    const int64_t limit = name == "BATCH" ? 2 : 97;
    const int64_t divisor = passes::DivisibilityClass(value, max_divisor);
    const int64_t cut = std::max(divisor, limit - limit % divisor);
    small[name] = std::min<int64_t>(value, cut);
  }
  return small;
}

std::string ConfigName(const ops::OpCase& op, const Config& config) {
  for (const ops::OpConfig& candidate : op.config_space.candidates) {
    if (Config(candidate.values.begin(), candidate.values.end()) == config) return candidate.name;
  }
  return runtime::jit::ConfigToString(config);
}

namespace {

// A block's buffers in bytes, the shared ones once per pipeline stage (`stages`): what a block
// keeps at once. nullopt where a buffer's shape is not constant.
class TileBytes final : public IRVisitor {
 public:
  explicit TileBytes(int64_t stages) : stages_(stages) {}
  std::optional<int64_t> bytes() const { return constant_ ? std::optional(bytes_) : std::nullopt; }

  void VisitAllocate(const Allocate& node) override {
    int64_t elements = 1;
    for (const Expr& extent : node.buffer->shape) {
      const std::optional<int64_t> value = AsConstInt(extent);
      if (!value) {
        constant_ = false;
        return;
      }
      elements *= *value;
    }
    const int64_t copies = node.buffer->scope == MemoryScope::kShared ? stages_ : 1;
    bytes_ += elements * node.buffer->dtype.bits() / 8 * copies;
    IRVisitor::VisitAllocate(node);
  }

 private:
  int64_t stages_;
  int64_t bytes_ = 0;
  bool constant_ = true;
};

// The operator's kernel at `config`.
absl::StatusOr<Kernel> KernelAt(const ops::OpCase& op, const Config& config) {
  return op.config_space.build(std::map<std::string, int64_t>(config.begin(), config.end()));
}

}  // namespace

runtime::jit::TargetPreferences PreferencesOf(const ops::OpCase& op, const targets::Target& target,
                                              const ops::Shapes& dims, bool static_shapes,
                                              LoweringRemarksByConfig* remarks) {
  runtime::jit::TargetPreferences preferences;
  const std::shared_ptr<const passes::TargetInfo> info = target.info();
  preferences.has_async_copy = info->has_async_copy();
  preferences.min_block_threads = info->min_block_threads_preferred();
  preferences.block_threads = [&op](const Config& config) -> std::optional<int64_t> {
    absl::StatusOr<Kernel> kernel = KernelAt(op, config);
    if (!kernel.ok()) return std::nullopt;
    int64_t threads = 1;
    for (int64_t extent : (*kernel)->launch.threads) threads *= extent;
    return threads;
  };
  preferences.block_cache_bytes = info->block_cache_bytes();
  preferences.block_bytes = [&op](const Config& config) -> std::optional<int64_t> {
    absl::StatusOr<Kernel> kernel = KernelAt(op, config);
    if (!kernel.ok()) return std::nullopt;
    int64_t stages = 1;
    for (const ops::TunableParam& param : op.config_space.params) {
      auto value = config.find(param.name);
      if (param.kind == ops::TunableParam::Kind::kStages && value != config.end()) {
        stages = std::max<int64_t>(stages, value->second);
      }
    }
    TileBytes bytes(stages);
    bytes.VisitKernel(**kernel);
    return bytes.bytes();
  };
  preferences.concurrent_blocks = info->concurrent_blocks();
  preferences.block_count = [&op, dims](const Config& config) -> std::optional<int64_t> {
    absl::StatusOr<Kernel> kernel = KernelAt(op, config);
    if (!kernel.ok()) return std::nullopt;
    passes::IntEnv env;
    for (const VarRef& dim_var : (*kernel)->dims) {
      auto dim = dims.find(dim_var->name);
      if (dim != dims.end()) env[dim_var.get()] = dim->second;
    }
    int64_t blocks = 1;
    for (const GridAxis& axis : (*kernel)->launch.grid) {
      std::optional<int64_t> value = passes::EvaluateInt(axis.extent, env);
      if (!value || *value <= 0 || blocks > (int64_t{1} << 40) / *value) return std::nullopt;
      blocks *= *value;
    }
    return blocks;
  };
  preferences.takes_fastest_path = [&op, &target, info, dims, static_shapes,
                                    remarks](const Config& config) {
    absl::StatusOr<Module> module = static_shapes ? BuildSpecializedConfig(op, config, dims)
                                                  : BuildClassedConfig(op, config, dims, *info);
    if (!module.ok()) return false;
    std::vector<std::string> lines;
    absl::StatusOr<Module> lowered = target.Lower(*module, "", &lines);
    if (!lowered.ok()) return false;
    if (remarks != nullptr) (*remarks)[config] = std::move(lines);
    for (const Kernel& kernel : lowered->kernels) {
      if (!info->OnFastestPath(*kernel)) return false;
    }
    return true;
  };
  return preferences;
}

absl::StatusOr<Module> BuildConfig(const ops::OpCase& op, const Config& config) {
  absl::StatusOr<Kernel> kernel = KernelAt(op, config);
  if (!kernel.ok()) return kernel.status();
  return dsl::MakeModule({*kernel});
}

absl::StatusOr<Module> BuildSpecializedConfig(const ops::OpCase& op, const Config& config,
                                              const ops::Shapes& dims) {
  absl::StatusOr<Module> module = BuildConfig(op, config);
  if (!module.ok()) return module.status();
  return runtime::jit::SpecializeModule(*std::move(module), nullptr, dims, {.all_static = true});
}

absl::StatusOr<Module> BuildClassedConfig(const ops::OpCase& op, const Config& config,
                                          const ops::Shapes& dims,
                                          const passes::TargetInfo& target) {
  absl::StatusOr<Module> module = BuildConfig(op, config);
  if (!module.ok()) return module.status();
  return runtime::jit::SpecializeModule(*std::move(module), &target, dims);
}

// The config's kernel compiled (through the cache) with `dims` as constants.
absl::StatusOr<runtime::LoadedKernel*> CompileSpecialized(runtime::jit::KernelCache& cache,
                                                          const ops::OpCase& op,
                                                          const Config& config,
                                                          const ops::Shapes& dims) {
  absl::StatusOr<Module> module = BuildSpecializedConfig(op, config, dims);
  if (!module.ok()) return module.status();
  absl::StatusOr<runtime::jit::CachedKernel> cached = cache.Get(*module, op.name);
  if (!cached.ok()) return cached.status();
  return cached->kernel;
}

namespace {

// The shapes the candidates are checked at: CheckShapes under the divisibility cap of the binary
// they are checked with (the dynamic one, as BuildClassedConfig compiles it, also under
// --static-shapes), with the dims that binary compiles in kept at their values.
ops::Shapes CheckShapesOf(runtime::jit::KernelCache& cache, const ops::OpCase& op,
                          const ops::Shapes& dims) {
  absl::StatusOr<Kernel> kernel = op.build();
  if (!kernel.ok()) return CheckShapes(dims);
  absl::StatusOr<runtime::jit::SpecializationPlan> plan =
      runtime::jit::PlanSpecialization(**kernel, cache.backend().target().info().get());
  if (!plan.ok()) return CheckShapes(dims);
  ops::Shapes small = CheckShapes(dims, plan->max_divisor);
  for (const std::string& name : plan->CompiledInNames()) {
    if (auto it = dims.find(name); it != dims.end()) small[name] = it->second;
  }
  return small;
}

// What keys the tuning record besides the backend: the kernel, the candidates' builds and the
// problem (the shapes timed and checked). The seed of the check's inputs stays out of the key:
// a choice checked on one set of random inputs holds for another, and tile-run draws a fresh
// seed when none is given.
runtime::jit::TuningProblem KeyedProblem(runtime::jit::KernelCache& cache, const ops::OpCase& op,
                                         const AutotuneRequest& request) {
  runtime::jit::TuningProblem problem;
  problem.kernel_name = op.name;
  std::shared_ptr<const passes::TargetInfo> target = cache.backend().target().info();
  problem.build = [&op, dims = request.dims, target](const Config& config) {
    return BuildClassedConfig(op, config, dims, *target);
  };
  problem.problem = absl::StrCat("timed ", FormatShapes(request.dims),
                                 request.static_shapes ? " (static shapes)" : "", "; checked ",
                                 FormatShapes(CheckShapesOf(cache, op, request.dims)));
  return problem;
}

}  // namespace

ops::Shapes TuningCheckShapes(runtime::jit::KernelCache& cache, const ops::OpCase& op,
                              const AutotuneRequest& request) {
  return CheckShapesOf(cache, op, request.dims);
}

std::optional<TuningResult> StoredTuningOp(runtime::jit::KernelCache& cache, const ops::OpCase& op,
                                           const AutotuneRequest& request) {
  if (op.config_space.candidates.empty() || !op.config_space.build) return std::nullopt;
  return runtime::jit::StoredTuning(cache, ToJitSpace(op.config_space),
                                    KeyedProblem(cache, op, request));
}

absl::StatusOr<TuningResult> AutotuneOp(runtime::jit::KernelCache& cache, const ops::OpCase& op,
                                        const AutotuneRequest& request) {
  if (op.config_space.candidates.empty() || !op.config_space.build) {
    return absl::FailedPreconditionError(
        absl::StrCat("operator '", op.name, "' has no config space to tune"));
  }
  runtime::Device& device = cache.backend().device();
  const ops::Shapes check_dims = TuningCheckShapes(cache, op, request);
  runtime::jit::TuningProblem problem = KeyedProblem(cache, op, request);
  problem.check_and_time = [&](runtime::LoadedKernel& kernel,
                               const Config& config) -> absl::StatusOr<double> {
    RunOptions check;
    check.dims = check_dims;
    check.scalars = request.scalars;
    check.integer_scalars = request.integer_scalars;
    check.seed = request.seed;
    check.check = true;
    absl::StatusOr<RunResult> checked = RunKernel(device, kernel, &op, check);
    if (!checked.ok()) return checked.status();
    for (const OutputCheck& output : checked->checks) {
      if (!output.passed()) {
        return absl::InternalError(
            absl::StrCat("wrong at ", FormatShapes(check_dims), ": ", FormatCheck(output)));
      }
    }
    RunOptions timed;
    timed.dims = request.dims;
    timed.scalars = request.scalars;
    timed.integer_scalars = request.integer_scalars;
    timed.seed = request.seed;
    timed.bench = true;
    timed.warmup = request.warmup;
    timed.iters = request.iters;
    runtime::LoadedKernel* timed_kernel = &kernel;
    if (request.static_shapes) {
      absl::StatusOr<runtime::LoadedKernel*> specialized =
          CompileSpecialized(cache, op, config, request.dims);
      if (!specialized.ok()) return specialized.status();
      timed_kernel = *specialized;
      for (const auto& [dim, value] : request.dims) timed.specialized_dims.push_back(dim);
    }
    absl::StatusOr<RunResult> run = RunKernel(device, *timed_kernel, &op, timed);
    if (!run.ok()) return run.status();
    return *run->median_seconds;
  };
  runtime::jit::AutotuneOptions options;
  options.retune = request.retune;
  options.progress = request.progress;
  return runtime::jit::Autotune(cache, ToJitSpace(op.config_space), problem, options);
}

std::string FormatTuningTable(const ops::OpCase& op, const TuningResult& result,
                              const ops::Shapes& dims) {
  std::vector<std::string> header = {"config"};
  for (const ops::TunableParam& param : op.config_space.params) header.push_back(param.name);
  for (const char* column : {"median", "throughput", "result"}) header.push_back(column);
  std::vector<std::vector<std::string>> rows;
  for (const runtime::jit::CandidateResult& candidate : result.candidates) {
    std::vector<std::string> row = {ConfigName(op, candidate.config)};
    for (const ops::TunableParam& param : op.config_space.params) {
      auto it = candidate.config.find(param.name);
      row.push_back(it == candidate.config.end() ? "-" : absl::StrCat(it->second));
    }
    if (candidate.error.empty()) {
      row.push_back(FormatSeconds(candidate.seconds));
      row.push_back(
          op.flops && candidate.seconds > 0
              ? absl::StrCat(FormatError(op.flops(dims) / candidate.seconds / 1e9), " GFLOP/s")
              : "-");
      row.push_back(candidate.config == result.best ? "best" : "ok");
    } else {
      row.push_back("-");
      row.push_back("-");
      // A compile or load error is the target refusing the config (shared
      // memory, registers, threads); a run error or a wrong output is ours.
      const bool wrong = candidate.error.rfind("wrong at ", 0) == 0;
      std::string error = candidate.error.substr(0, 160);
      std::replace(error.begin(), error.end(), '\n', ' ');
      row.push_back(wrong ? error : absl::StrCat("skipped: ", error));
    }
    rows.push_back(std::move(row));
  }
  return FormatTable(header, rows);
}

absl::StatusOr<RunSpecialization> SpecializeAsRun(const Kernel& kernel, const ops::Shapes& dims,
                                                  bool static_shapes,
                                                  const passes::TargetInfo* target) {
  absl::StatusOr<runtime::jit::SpecializationPlan> plan =
      runtime::jit::PlanSpecialization(*kernel, target, {.all_static = static_shapes});
  if (!plan.ok()) return plan.status();
  absl::StatusOr<runtime::jit::SpecializedKernel> specialized =
      runtime::jit::ApplySpecialization(*plan, kernel, dims);
  if (!specialized.ok()) return specialized.status();
  return RunSpecialization{std::move(specialized->kernel), plan->CompiledInNames(),
                           std::move(specialized->requirements)};
}

}  // namespace tile_ir::tools
