// tile-run's compile stage: where a run's kernel is compiled (the kernel cache on a JIT backend,
// a fresh compile for --dump-cubin, or the device's own Load) and one interface over the three.
#ifndef TOOLS_TILE_RUN_OBTAIN_KERNEL_H_
#define TOOLS_TILE_RUN_OBTAIN_KERNEL_H_

#include <iosfwd>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/device_base.h"
#include "runtime/jit/jit_backend.h"
#include "runtime/jit/kernel_cache.h"
#include "targets/target.h"
#include "tile_ir/module.h"
#include "tools/tile_run/run_request.h"

namespace tile_ir::tools {

// Where a run's kernel is compiled: through the kernel cache on a JIT
// backend's device when the binary has one, else by Device::Load (the device's
// target compiles, the device loads; no cache).
struct Compiler {
  runtime::Device* device = nullptr;            // null when only explaining
  runtime::jit::JitBackend* backend = nullptr;  // with `cache`
  std::unique_ptr<runtime::jit::KernelCache> cache;
  std::string target;  // --target
  // What --explain asks: the backend's target, or the one --target names (no device opened),
  // which `resolved` then owns.
  const targets::Target* target_object = nullptr;
  std::shared_ptr<const targets::Target> resolved;
};

// The kernel cache over the backend: --cache-dir's folder unless TILE_DISABLE_CACHE=1, which wins
// over --cache-dir: it is the switch for every tool. Its warnings go to `err`.
std::unique_ptr<runtime::jit::KernelCache> OpenCache(runtime::jit::JitBackend& backend,
                                                     const RunRequest& request, std::ostream& err);

// A loaded kernel, however it was obtained, and the report's cache line.
struct ObtainedKernel {
  std::unique_ptr<runtime::LoadedKernel> owned;  // when not the cache's
  runtime::LoadedKernel* loaded = nullptr;
  std::string cache_line;
};

// Stage 6, one interface over the three ways to a loaded kernel: the kernel cache; a fresh
// compile on the backend (--dump-cubin bypasses the cache); the device's own Load (no backend).
absl::StatusOr<ObtainedKernel> ObtainKernel(const RunRequest& request, Compiler& compiler,
                                            const Module& module, const std::string& name);

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_RUN_OBTAIN_KERNEL_H_
