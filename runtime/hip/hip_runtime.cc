// dlopen of libamdhip64 and the few calls a launch needs.
#include "runtime/hip/hip_runtime.h"

#include <dlfcn.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tile_ir::runtime::hip {
namespace {

constexpr int kHipSuccess = 0;

template <typename F>
bool Resolve(void* handle, const char* name, F& function) {
  function = reinterpret_cast<F>(dlsym(handle, name));
  return function != nullptr;
}

std::string ErrorText(const HipApi& api, int code) {
  const char* text = api.hipGetErrorString != nullptr ? api.hipGetErrorString(code) : nullptr;
  return absl::StrCat("error ", code, text != nullptr ? absl::StrCat(" (", text, ")") : "");
}

absl::Status Check(const HipApi& api, int code, const std::string& what) {
  if (code == kHipSuccess) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(what, " failed: ", ErrorText(api, code)));
}

}  // namespace

absl::StatusOr<HipApi> LoadHipRuntimeFrom(const std::string& library) {
  // The handle stays open for the process: the functions live in it.
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return absl::FailedPreconditionError(
        absl::StrCat("cannot load the HIP runtime '", library, "': ", why ? why : "unknown"));
  }
  HipApi api;
  api.library = library;
  std::vector<std::string> missing;
  auto need = [&](const char* name, auto& function) {
    if (!Resolve(handle, name, function)) missing.push_back(name);
  };
  need("hipInit", api.hipInit);
  need("hipGetDeviceCount", api.hipGetDeviceCount);
  need("hipGetErrorString", api.hipGetErrorString);
  need("hipModuleLoadData", api.hipModuleLoadData);
  need("hipModuleGetFunction", api.hipModuleGetFunction);
  need("hipModuleLaunchKernel", api.hipModuleLaunchKernel);
  need("hipDeviceSynchronize", api.hipDeviceSynchronize);
  if (!missing.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the HIP runtime '", library, "' lacks ", absl::StrJoin(missing, ", ")));
  }
  return api;
}

absl::StatusOr<const HipApi*> LoadHipRuntime() {
  static const absl::StatusOr<HipApi>* loaded = [] {
    std::vector<std::string> candidates;
    if (const char* env = std::getenv("TILE_HIP_RUNTIME"); env != nullptr && *env != '\0') {
      candidates.push_back(env);
    } else {
      candidates = {"libamdhip64.so.5", "libamdhip64.so"};
    }
    std::vector<std::string> errors;
    for (const std::string& candidate : candidates) {
      absl::StatusOr<HipApi> api = LoadHipRuntimeFrom(candidate);
      if (api.ok()) return new absl::StatusOr<HipApi>(std::move(api));
      errors.push_back(std::string(api.status().message()));
    }
    return new absl::StatusOr<HipApi>(absl::FailedPreconditionError(
        absl::StrCat(absl::StrJoin(errors, "; "),
                     "; install Debian's libamdhip64-5 (or ROCm) or set $TILE_HIP_RUNTIME")));
  }();
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

absl::Status HipDeviceAvailable(const HipApi& api) {
  int init = api.hipInit(0);
  int count = 0;
  int counted = init == kHipSuccess ? api.hipGetDeviceCount(&count) : init;
  if (counted != kHipSuccess || count == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the HIP runtime (", api.library, ") loaded, but this machine has no AMD GPU it can use (",
        counted != kHipSuccess ? ErrorText(api, counted) : "0 devices",
        "); HIP kernels compile here (hipcc) but run only on a machine with one"));
  }
  return absl::OkStatus();
}

absl::Status LaunchHipKernel(const HipApi& api, const std::string& code_object,
                             const HipLaunch& launch) {
  if (absl::Status device = HipDeviceAvailable(api); !device.ok()) return device;
  void* module = nullptr;
  if (absl::Status loaded =
          Check(api, api.hipModuleLoadData(&module, code_object.data()), "hipModuleLoadData");
      !loaded.ok()) {
    return loaded;
  }
  void* function = nullptr;
  if (absl::Status found =
          Check(api, api.hipModuleGetFunction(&function, module, launch.kernel.c_str()),
                absl::StrCat("hipModuleGetFunction('", launch.kernel, "')"));
      !found.ok()) {
    return found;
  }
  std::vector<void*> args = launch.args;
  if (absl::Status launched = Check(
          api,
          api.hipModuleLaunchKernel(function, launch.grid[0], launch.grid[1], launch.grid[2],
                                    launch.block[0], launch.block[1], launch.block[2],
                                    launch.shared_memory_bytes, nullptr, args.data(), nullptr),
          absl::StrCat("launching '", launch.kernel, "'"));
      !launched.ok()) {
    return launched;
  }
  return Check(api, api.hipDeviceSynchronize(), "hipDeviceSynchronize");
}

}  // namespace tile_ir::runtime::hip
