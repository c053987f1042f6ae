// tile_kernel: compiling through one process-wide kernel cache per target,
// and launching on DLPack arguments.
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "capi/handles.h"
#include "capi/tile.h"
#include "frontends/io/module_io.h"
#include "passes/analysis/padded_reductions.h"
#include "runtime/jit/jit_backend.h"
#include "runtime/jit/kernel_cache.h"
#include "runtime/jit/specialization_plan.h"
#include "targets/target.h"
#include "tile_ir/printer.h"

namespace tile_ir::capi {

using runtime::jit::JitBackend;
using runtime::jit::KernelCache;

// One backend (a device, a CUDA context) and one cache per target string, for
// the life of the process: opening a device is the expensive part of a first
// call, and cached kernels must outlive the handles that point at them. Never
// destroyed, so no kernel dies under a thread still launching it at exit.
absl::StatusOr<TargetRuntime*> RuntimeFor(const std::string& target) {
  static std::mutex mutex;
  static auto* runtimes = new std::map<std::string, std::unique_ptr<TargetRuntime>>;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = runtimes->find(target); it != runtimes->end()) return it->second.get();
  absl::StatusOr<std::unique_ptr<JitBackend>> backend = runtime::jit::OpenJitBackend(target);
  if (!backend.ok()) {
    return absl::Status(backend.status().code(),
                        absl::StrCat("target '", target, "': ", backend.status().message()));
  }
  auto entry = std::make_unique<TargetRuntime>();
  entry->backend = *std::move(backend);
  entry->cache = std::make_unique<KernelCache>(*entry->backend,
                                               runtime::jit::KernelCacheOptions::FromEnvironment());
  TargetRuntime* result = entry.get();
  (*runtimes)[target] = std::move(entry);
  return result;
}

// The first line of the kernel's canonical text without "kernel ".
std::string Signature(const KernelNode& kernel) {
  std::string text = Print(kernel);
  std::string line = text.substr(0, text.find('\n'));
  if (line.rfind("kernel ", 0) == 0) line = line.substr(7);
  return line;
}

std::unique_ptr<tile_kernel> LoadedKernelHandle(runtime::LoadedKernel* loaded, Module single,
                                                const targets::Target& target,
                                                std::string cache_info) {
  auto kernel = std::make_unique<tile_kernel>();
  kernel->loaded = loaded;
  const KernelNode& signature = loaded->signature();
  kernel->name = signature.name;
  kernel->signature = Signature(*single.kernels.front());
  kernel->ir = io::WriteModule(single, io::ModuleFormat::kText);
  kernel->cache_info = std::move(cache_info);
  for (const Param& param : signature.params) {
    kernel->param_names.push_back(param.name());
    kernel->param_is_buffer.push_back(param.is_buffer() ? 1 : 0);
  }
  kernel->single = std::move(single);
  kernel->target = &target;
  return kernel;
}

}  // namespace tile_ir::capi

using tile_ir::capi::NullArgument;
using tile_ir::capi::Report;

namespace {

// tile_kernel_launch and tile_kernel_launch_async: the arguments checked and converted, the
// kernel specialized where it is compiled per call, then launched and waited for, or enqueued
// on `stream`.
tile_status LaunchKernel(const char* function, tile_kernel* kernel, const tile_arg* args,
                         size_t num_args, bool wait, void* stream) {
  if (kernel == nullptr) return NullArgument(function, "kernel");
  if (args == nullptr && num_args > 0) return NullArgument(function, "args");
  // One vector per thread, reused: a call allocates nothing here.
  thread_local std::vector<tile_ir::runtime::KernelArg> converted;
  converted.clear();
  converted.reserve(num_args);
  for (size_t i = 0; i < num_args; ++i) {
    const tile_arg& arg = args[i];
    if (arg.kind == TILE_ARG_SCALAR) {
      converted.push_back(tile_ir::runtime::KernelArg::Scalar(arg.scalar));
      continue;
    }
    if (arg.kind == TILE_ARG_INT) {
      converted.push_back(tile_ir::runtime::KernelArg::Integer(arg.integer));
      continue;
    }
    if (arg.kind != TILE_ARG_TENSOR) {
      return Report(absl::InvalidArgumentError(
          absl::StrCat("kernel '", kernel->name, "': argument ", i + 1, " has the unknown kind ",
                       static_cast<int>(arg.kind))));
    }
    if (arg.tensor == nullptr) {
      return Report(
          absl::InvalidArgumentError(absl::StrCat("kernel '", kernel->name, "': argument ", i + 1,
                                                  " is a tensor argument whose tensor is NULL")));
    }
    converted.push_back(tile_ir::runtime::KernelArg::Tensor(arg.tensor));
  }
  tile_ir::runtime::LoadedKernel* loaded = kernel->loaded;
  if (kernel->per_call) {
    absl::StatusOr<tile_ir::runtime::LoadedKernel*> specialized =
        kernel->per_call->Specialize(converted);
    if (!specialized.ok()) {
      return Report(absl::Status(
          specialized.status().code(),
          absl::StrCat("kernel '", kernel->name, "': ", specialized.status().message())));
    }
    loaded = *specialized;
  }
  return Report(wait ? loaded->Launch(converted) : loaded->LaunchAsync(converted, stream));
}
}  // namespace

extern "C" {

tile_status tile_kernel_compile(const tile_module* module, const char* kernel_name,
                                const char* target, tile_kernel** out) {
  if (module == nullptr) return NullArgument("tile_kernel_compile", "module");
  if (kernel_name == nullptr) return NullArgument("tile_kernel_compile", "kernel_name");
  if (target == nullptr) return NullArgument("tile_kernel_compile", "target");
  if (out == nullptr) return NullArgument("tile_kernel_compile", "out");
  *out = nullptr;
  absl::StatusOr<tile_ir::Module> single =
      tile_ir::targets::SingleKernelModule(module->module, kernel_name);
  if (!single.ok()) return Report(single.status());
  absl::StatusOr<tile_ir::capi::TargetRuntime*> runtime = tile_ir::capi::RuntimeFor(target);
  if (!runtime.ok()) return Report(runtime.status());
  // Where the plan compiles dims in or classes them, each call's shapes select a binary
  // (cached like any kernel); else one binary serves every call.
  const tile_ir::KernelNode& generic = *single->kernels.front();
  absl::StatusOr<tile_ir::runtime::jit::SpecializationPlan> plan =
      tile_ir::runtime::jit::PlanSpecialization(generic,
                                                (*runtime)->cache->backend().target().info().get());
  if (!plan.ok()) return Report(plan.status());
  if (plan->PerCall()) {
    auto kernel = std::make_unique<tile_kernel>();
    kernel->per_call = std::make_unique<tile_ir::runtime::jit::JitFunction>(
        tile_ir::runtime::jit::KernelTemplate::FromModule(*single, kernel_name),
        tile_ir::runtime::jit::TemplateArgs{}, *(*runtime)->cache);
    kernel->name = generic.name;
    kernel->signature = tile_ir::capi::Signature(generic);
    kernel->ir = tile_ir::io::WriteModule(*single, tile_ir::io::ModuleFormat::kText);
    kernel->cache_info = absl::StrCat("compiled ", plan->Describe());
    kernel->single = *single;
    kernel->target = &(*runtime)->cache->backend().target();
    for (const tile_ir::Param& param : generic.params) {
      kernel->param_names.push_back(param.name());
      kernel->param_is_buffer.push_back(param.is_buffer() ? 1 : 0);
    }
    *out = kernel.release();
    return TILE_OK;
  }
  absl::StatusOr<tile_ir::runtime::jit::CachedKernel> cached =
      (*runtime)->cache->Get(*single, kernel_name);
  if (!cached.ok()) {
    return Report(absl::Status(cached.status().code(),
                               absl::StrCat("kernel '", kernel_name, "' for target '", target,
                                            "': ", cached.status().message())));
  }
  *out = tile_ir::capi::LoadedKernelHandle(
             cached->kernel, *std::move(single), (*runtime)->cache->backend().target(),
             absl::StrCat("cache: ",
                          std::string(tile_ir::runtime::jit::CacheSourceName(cached->source)),
                          ", key ", cached->key))
             .release();
  return TILE_OK;
}

void tile_kernel_free(tile_kernel* kernel) { delete kernel; }

const char* tile_kernel_name(const tile_kernel* kernel) {
  return kernel ? kernel->name.c_str() : nullptr;
}
const char* tile_kernel_signature(const tile_kernel* kernel) {
  return kernel ? kernel->signature.c_str() : nullptr;
}
const char* tile_kernel_ir(const tile_kernel* kernel) {
  return kernel ? kernel->ir.c_str() : nullptr;
}
const char* tile_kernel_cache_info(const tile_kernel* kernel) {
  return kernel ? kernel->cache_info.c_str() : nullptr;
}
const char* tile_kernel_source(tile_kernel* kernel) {
  if (kernel == nullptr) {
    NullArgument("tile_kernel_source", "kernel");
    return nullptr;
  }
  if (kernel->source.empty()) {
    absl::StatusOr<tile_ir::Module> lowered = kernel->target->Lower(kernel->single);
    absl::StatusOr<std::string> source =
        lowered.ok() ? kernel->target->Emit(*lowered, tile_ir::targets::EmitOptions{})
                     : absl::StatusOr<std::string>(lowered.status());
    if (!source.ok()) {
      Report(absl::Status(source.status().code(),
                          absl::StrCat("kernel '", kernel->name, "' for target '",
                                       kernel->target->ToString(),
                                       "': ", source.status().message())));
      return nullptr;
    }
    kernel->source = *std::move(source);
  }
  return kernel->source.c_str();
}
const char* tile_kernel_remarks(tile_kernel* kernel) {
  if (kernel == nullptr) {
    NullArgument("tile_kernel_remarks", "kernel");
    return nullptr;
  }
  if (!kernel->remarks) {
    std::string lines;
    for (const tile_ir::Kernel& each : kernel->single.kernels) {
      for (const tile_ir::passes::PaddedReduction& finding :
           tile_ir::passes::FindPaddedReductions(*each)) {
        absl::StrAppend(&lines, tile_ir::passes::FormatPaddedReduction(finding), "\n");
      }
    }
    kernel->remarks = std::move(lines);
  }
  return kernel->remarks->c_str();
}
size_t tile_kernel_num_params(const tile_kernel* kernel) {
  return kernel ? kernel->param_names.size() : 0;
}
const char* tile_kernel_param_name(const tile_kernel* kernel, size_t i) {
  if (kernel == nullptr || i >= kernel->param_names.size()) return nullptr;
  return kernel->param_names[i].c_str();
}
int tile_kernel_param_is_buffer(const tile_kernel* kernel, size_t i) {
  if (kernel == nullptr || i >= kernel->param_is_buffer.size()) return -1;
  return kernel->param_is_buffer[i];
}

tile_status tile_kernel_launch(tile_kernel* kernel, const tile_arg* args, size_t num_args) {
  return LaunchKernel("tile_kernel_launch", kernel, args, num_args, /*wait=*/true, nullptr);
}

tile_status tile_kernel_launch_async(tile_kernel* kernel, const tile_arg* args, size_t num_args,
                                     void* stream) {
  return LaunchKernel("tile_kernel_launch_async", kernel, args, num_args, /*wait=*/false, stream);
}

}  // extern "C"
