// tile-run's compile stage: the kernel cache opened, and a loaded kernel obtained through it, a
// fresh compile, or the device's Load.
#include "tools/tile_run/obtain_kernel.h"

#include <cstdlib>
#include <optional>
#include <ostream>
#include <utility>

#include "absl/strings/str_cat.h"

namespace tile_ir::tools {

std::unique_ptr<runtime::jit::KernelCache> OpenCache(runtime::jit::JitBackend& backend,
                                                     const RunRequest& request, std::ostream& err) {
  runtime::jit::KernelCacheOptions options = runtime::jit::KernelCacheOptions::FromEnvironment();
  const char* disable = std::getenv("TILE_DISABLE_CACHE");
  if (request.cache_dir && !(disable != nullptr && std::string(disable) == "1")) {
    options.directory = *request.cache_dir;
  }
  options.warn = [&err](const std::string& message) {
    err << "tile-run: warning: " << message << "\n";
  };
  return std::make_unique<runtime::jit::KernelCache>(backend, options);
}

absl::StatusOr<ObtainedKernel> ObtainKernel(const RunRequest& request, Compiler& compiler,
                                            const Module& module, const std::string& name) {
  ObtainedKernel obtained;
  if (compiler.cache != nullptr && !request.dump_dir) {
    absl::StatusOr<runtime::jit::CachedKernel> cached = compiler.cache->Get(module, name);
    if (!cached.ok()) return cached.status();
    obtained.loaded = cached->kernel;
    const std::optional<runtime::jit::DiskCache>& disk = compiler.cache->disk();
    obtained.cache_line = absl::StrCat(
        std::string(runtime::jit::CacheSourceName(cached->source)), ", key ", cached->key,
        disk ? absl::StrCat(" in ", disk->directory()) : std::string(" (memory only)"));
    return obtained;
  }
  absl::StatusOr<std::unique_ptr<runtime::LoadedKernel>> compiled;
  obtained.cache_line = "off (this binary compiles on the device)";
  if (compiler.backend != nullptr) {
    absl::StatusOr<runtime::jit::CompiledKernel> fresh = compiler.backend->Compile(module, name);
    if (!fresh.ok()) return fresh.status();
    compiled = std::move(fresh->kernel);
    obtained.cache_line = "bypassed (--dump-cubin)";
  } else {
    compiled = compiler.device->Load(module, name);
  }
  if (!compiled.ok()) return compiled.status();
  obtained.owned = *std::move(compiled);
  obtained.loaded = obtained.owned.get();
  return obtained;
}

}  // namespace tile_ir::tools
