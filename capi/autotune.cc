// tile_autotune: the runtime's autotuner (runtime/jit/autotuner.h) over candidates that the
// caller builds and checks through callbacks; the Python package's tile.autotune.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "capi/handles.h"
#include "capi/tile.h"
#include "runtime/jit/autotuner.h"
#include "targets/target.h"

namespace tile_ir::capi {
namespace {

using runtime::jit::Config;

constexpr const char kCandidate[] = "candidate";

// The message a callback left, or what failed when it left none.
std::string CallbackError(const char* error, const char* what, tile_status status) {
  if (error != nullptr && error[0] != '\0') return error;
  return absl::StrCat(what, " failed (", tile_status_name(status), ") without a message");
}

// The candidates as a space of one parameter, the candidate's index: every candidate's kernel
// text is part of the record's key, so the index alone names nothing ambiguous.
runtime::jit::ConfigSpace CandidateSpace(size_t count) {
  runtime::jit::ConfigSpace space;
  runtime::jit::TuningParam param;
  param.name = kCandidate;
  param.kind = runtime::jit::TuningParam::Kind::kPolicy;
  for (size_t i = 0; i < count; ++i) {
    param.values.push_back(static_cast<int64_t>(i));
    space.candidates.push_back(Config{{kCandidate, static_cast<int64_t>(i)}});
  }
  space.params.push_back(param);
  return space;
}

absl::Status CheckRequest(const tile_autotune_request* request) {
  if (request->target == nullptr || request->kernel_name == nullptr) {
    return absl::InvalidArgumentError("tile_autotune: the request's target and kernel_name "
                                      "must not be NULL");
  }
  if (request->build == nullptr || request->check_and_time == nullptr) {
    return absl::InvalidArgumentError("tile_autotune: the request's build and check_and_time "
                                      "callbacks must not be NULL");
  }
  if (request->num_candidates == 0) {
    return absl::InvalidArgumentError("tile_autotune: the request has no candidates");
  }
  return absl::OkStatus();
}

char* CopyString(const std::string& text) {
  char* copy = static_cast<char*>(std::malloc(text.size() + 1));
  if (copy != nullptr) std::memcpy(copy, text.c_str(), text.size() + 1);
  return copy;
}

}  // namespace
}  // namespace tile_ir::capi

extern "C" {

tile_status tile_autotune(const tile_autotune_request* request, size_t* best, char** report) {
  using tile_ir::capi::Report;
  if (request == nullptr) return tile_ir::capi::NullArgument("tile_autotune", "request");
  if (best == nullptr) return tile_ir::capi::NullArgument("tile_autotune", "best");
  if (report == nullptr) return tile_ir::capi::NullArgument("tile_autotune", "report");
  *report = nullptr;
  if (absl::Status valid = tile_ir::capi::CheckRequest(request); !valid.ok()) {
    return Report(valid);
  }
  absl::StatusOr<tile_ir::capi::TargetRuntime*> runtime =
      tile_ir::capi::RuntimeFor(request->target);
  if (!runtime.ok()) return Report(runtime.status());
  tile_ir::runtime::jit::KernelCache& cache = *(*runtime)->cache;
  const tile_ir::targets::Target& target = cache.backend().target();
  const std::string kernel_name = request->kernel_name;

  // Each candidate's module, kept for the handle its check gets (build runs before compiles).
  std::vector<tile_ir::Module> built(request->num_candidates);
  tile_ir::runtime::jit::TuningProblem problem;
  problem.kernel_name = kernel_name;
  problem.problem = request->problem != nullptr ? request->problem : "";
  problem.build = [&](const tile_ir::runtime::jit::Config& config)
      -> absl::StatusOr<tile_ir::Module> {
    const size_t index = static_cast<size_t>(config.at(tile_ir::capi::kCandidate));
    tile_module* module = nullptr;
    const char* error = nullptr;
    tile_status status = request->build(request->user, index, &module, &error);
    if (status != TILE_OK || module == nullptr) {
      return absl::InvalidArgumentError(
          tile_ir::capi::CallbackError(error, "the build callback", status));
    }
    absl::StatusOr<tile_ir::Module> single =
        tile_ir::targets::SingleKernelModule(module->module, kernel_name);
    if (single.ok()) built[index] = *single;
    return single;
  };
  problem.check_and_time = [&](tile_ir::runtime::LoadedKernel& loaded,
                               const tile_ir::runtime::jit::Config& config)
      -> absl::StatusOr<double> {
    const size_t index = static_cast<size_t>(config.at(tile_ir::capi::kCandidate));
    // The handle the callback launches through; the cache keeps the kernel itself.
    std::unique_ptr<tile_kernel> kernel = tile_ir::capi::LoadedKernelHandle(
        &loaded, built[index], target, "cache: autotune candidate");
    double seconds = 0;
    const char* error = nullptr;
    tile_status status =
        request->check_and_time(request->user, index, kernel.get(), &seconds, &error);
    if (status != TILE_OK) {
      return absl::FailedPreconditionError(
          tile_ir::capi::CallbackError(error, "the check_and_time callback", status));
    }
    return seconds;
  };
  tile_ir::runtime::jit::AutotuneOptions options;
  options.parallel_compiles = request->parallel_compiles;
  options.retune = request->retune != 0;
  absl::StatusOr<tile_ir::runtime::jit::TuningResult> result = tile_ir::runtime::jit::Autotune(
      cache, tile_ir::capi::CandidateSpace(request->num_candidates), problem, options);
  if (!result.ok()) return Report(result.status());
  *best = static_cast<size_t>(result->best.at(tile_ir::capi::kCandidate));
  *report = tile_ir::capi::CopyString(
      absl::StrCat(result->ToRecord(), "from_cache ", result->from_cache ? 1 : 0, "\n"));
  return TILE_OK;
}

void tile_string_free(char* text) { std::free(text); }

}  // extern "C"
