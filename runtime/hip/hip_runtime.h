// The HIP runtime (ROCm's libamdhip64), loaded with dlopen at first use so
// that binaries build and run on machines without ROCm; a missing library or
// a machine without an AMD GPU is a clear error at use, never a link failure.
// Launches take the code objects targets/hip/hipcc_compiler.h builds.
#ifndef RUNTIME_HIP_HIP_RUNTIME_H_
#define RUNTIME_HIP_HIP_RUNTIME_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tile_ir::runtime::hip {

// The functions this runtime calls, resolved from the library.
struct HipApi {
  std::string library;  // the file dlopen loaded
  int (*hipInit)(unsigned) = nullptr;
  int (*hipGetDeviceCount)(int*) = nullptr;
  const char* (*hipGetErrorString)(int) = nullptr;
  int (*hipModuleLoadData)(void**, const void*) = nullptr;
  int (*hipModuleGetFunction)(void**, void*, const char*) = nullptr;
  int (*hipModuleLaunchKernel)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                               unsigned, void*, void**, void**) = nullptr;
  int (*hipDeviceSynchronize)() = nullptr;
};

// Loads the HIP runtime once per process: $TILE_HIP_RUNTIME when set, else
// libamdhip64.so.5, else libamdhip64.so. FailedPrecondition naming what was
// tried and how to install it when none loads or a symbol is missing.
absl::StatusOr<const HipApi*> LoadHipRuntime();
// Loads `library` itself (for tests and odd installations); not cached.
absl::StatusOr<HipApi> LoadHipRuntimeFrom(const std::string& library);

// OK when the runtime loads, initializes and sees at least one AMD GPU;
// otherwise FailedPrecondition saying which of the three is missing.
absl::Status HipDeviceAvailable(const HipApi& api);

struct HipLaunch {
  std::string kernel;  // the kernel's symbol, its IR name
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t shared_memory_bytes = 0;  // c_source::SharedMemoryBytes(kernel)
  // One pointer per kernel argument, to the argument's value (the HIP calling
  // convention of docs/LOWERING.md).
  std::vector<void*> args;
};

// Loads `code_object` (hipcc --genco output) and launches `launch`, then waits
// for it. Without an AMD GPU: FailedPrecondition from HipDeviceAvailable.
absl::Status LaunchHipKernel(const HipApi& api, const std::string& code_object,
                             const HipLaunch& launch);

}  // namespace tile_ir::runtime::hip

#endif  // RUNTIME_HIP_HIP_RUNTIME_H_
