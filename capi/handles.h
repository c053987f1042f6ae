// What libtile's opaque handles hold, and the one way its functions report
// errors (the thread's last error plus a tile_status). Internal to capi/.
#ifndef CAPI_HANDLES_H_
#define CAPI_HANDLES_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "capi/tile.h"
#include "runtime/device_base.h"
#include "absl/status/statusor.h"
#include "runtime/jit/jit_backend.h"
#include "runtime/jit/kernel_cache.h"
#include "runtime/jit/specializer.h"
#include "targets/target.h"
#include "tile_ir/module.h"

struct tile_module {
  tile_ir::Module module;
};

struct tile_kernel {
  // Owned by the process-wide kernel cache of its target, which outlives it. Null for a kernel
  // with dims that size fragments, or with dynamic dims on a target that specializes on their
  // divisibility: those are compiled per call's values or classes, through `per_call`.
  tile_ir::runtime::LoadedKernel* loaded = nullptr;
  std::unique_ptr<tile_ir::runtime::jit::JitFunction> per_call;
  std::string name;
  std::string signature;
  std::string ir;
  std::string cache_info;
  std::vector<std::string> param_names;
  std::vector<int> param_is_buffer;
  // What tile_kernel_source lowers: the module holding only this kernel, and its target (the
  // process-wide runtime's, which outlives the handle). `source` is filled on first request.
  tile_ir::Module single;
  const tile_ir::targets::Target* target = nullptr;
  std::string source;
  // tile_kernel_remarks' lines, made on first request from `single`.
  std::optional<std::string> remarks;
};

namespace tile_ir::capi {

// The JIT backend (a device) and kernel cache of one target string, opened on first use and
// kept for the life of the process (kernel.cc).
struct TargetRuntime {
  std::unique_ptr<runtime::jit::JitBackend> backend;
  std::unique_ptr<runtime::jit::KernelCache> cache;
};
absl::StatusOr<TargetRuntime*> RuntimeFor(const std::string& target);

// A handle of a kernel the cache loaded (it outlives the handle), compiled from `single` (the
// module holding only it) for `target`.
std::unique_ptr<tile_kernel> LoadedKernelHandle(runtime::LoadedKernel* loaded, Module single,
                                                const targets::Target& target,
                                                std::string cache_info);

// Records `status` as this thread's last error (when not OK) and returns its
// tile_status.
tile_status Report(const absl::Status& status);
// Report of an InvalidArgument error naming the function and the argument.
tile_status NullArgument(const char* function, const char* argument);

}  // namespace tile_ir::capi

#endif  // CAPI_HANDLES_H_
