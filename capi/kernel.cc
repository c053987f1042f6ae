// tile_kernel: compiling through one process-wide kernel cache per target,
// and launching on DLPack arguments.
#include <algorithm>
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
#include "passes/transforms/specialize_dims.h"
#include "runtime/jit/jit_backend.h"
#include "runtime/jit/kernel_cache.h"
#include "targets/target.h"
#include "tile_ir/printer.h"

namespace tile_ir::capi {
namespace {

using runtime::jit::JitBackend;
using runtime::jit::KernelCache;

struct TargetRuntime {
  std::unique_ptr<JitBackend> backend;
  std::unique_ptr<KernelCache> cache;
};

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

}  // namespace
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
  // Dims that size fragments are compiled in from each call's shapes (a specialization per
  // set of values, cached like any kernel); the others stay parameters of one binary, or of
  // one binary per divisibility class where the target specializes on it.
  const tile_ir::KernelNode& generic_kernel = *single->kernels.front();
  const std::vector<std::string> sizing = tile_ir::passes::DimsSizingRegisters(generic_kernel);
  const int64_t max_divisor =
      (*runtime)->cache->backend().target().info()->dim_divisibility_specialization(generic_kernel);
  const bool by_class = max_divisor > 1 && generic_kernel.dims.size() > sizing.size();
  if (!sizing.empty() || by_class) {
    auto kernel = std::make_unique<tile_kernel>();
    kernel->per_call = std::make_unique<tile_ir::runtime::jit::JitFunction>(
        tile_ir::runtime::jit::KernelTemplate::FromModule(*single, kernel_name),
        tile_ir::runtime::jit::TemplateArgs{}, *(*runtime)->cache);
    const tile_ir::KernelNode& generic = *single->kernels.front();
    kernel->name = generic.name;
    kernel->signature = tile_ir::capi::Signature(generic);
    kernel->ir = tile_ir::io::WriteModule(*single, tile_ir::io::ModuleFormat::kText);
    std::vector<std::string> dynamic;
    for (const tile_ir::VarRef& dim : generic.dims) {
      if (std::find(sizing.begin(), sizing.end(), dim->name) == sizing.end()) {
        dynamic.push_back(dim->name);
      }
    }
    std::vector<std::string> parts;
    if (!sizing.empty()) {
      parts.push_back(absl::StrCat("at each call's values of ", absl::StrJoin(sizing, ", "),
                                   " (they size fragments)"));
    }
    if (by_class) {
      parts.push_back(absl::StrCat("for each call's divisibility of ", absl::StrJoin(dynamic, ", "),
                                   " by powers of two up to ", max_divisor));
    }
    kernel->cache_info = absl::StrCat("compiled ", absl::StrJoin(parts, " and "));
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
  auto kernel = std::make_unique<tile_kernel>();
  kernel->loaded = cached->kernel;
  const tile_ir::KernelNode& signature = cached->kernel->signature();
  kernel->name = signature.name;
  kernel->signature = tile_ir::capi::Signature(*single->kernels.front());
  kernel->ir = tile_ir::io::WriteModule(*single, tile_ir::io::ModuleFormat::kText);
  kernel->cache_info =
      absl::StrCat("cache: ", std::string(tile_ir::runtime::jit::CacheSourceName(cached->source)),
                   ", key ", cached->key);
  for (const tile_ir::Param& param : signature.params) {
    kernel->param_names.push_back(param.name());
    kernel->param_is_buffer.push_back(param.is_buffer() ? 1 : 0);
  }
  *out = kernel.release();
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
