// LinkedDevices() and LinkedJitBackends() for the GPU machine's binaries:
// every runtime family but the CPU, whose compiler is LLVM (linked_runtime.cc).
#include "runtime/cuda/cuda_device.h"
#include "runtime/device_registry.h"
#include "runtime/jit/cuda_backend.h"
#include "runtime/jit/jit_backend.h"

namespace tile_ir::runtime {

const DeviceRegistry& LinkedDevices() {
  static const DeviceRegistry* registry = [] {
    auto* made = new DeviceRegistry;
    made->Add("cuda", cuda::OpenCudaTarget);
    return made;
  }();
  return *registry;
}

namespace jit {

const JitBackendRegistry& LinkedJitBackends() {
  static const JitBackendRegistry* registry = [] {
    auto* made = new JitBackendRegistry;
    made->Add("cuda", OpenCudaJitBackend);
    return made;
  }();
  return *registry;
}

}  // namespace jit
}  // namespace tile_ir::runtime
