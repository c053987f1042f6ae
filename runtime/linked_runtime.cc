// LinkedDevices() and LinkedJitBackends(): every runtime family, the one list
// (device_registry.h, jit/jit_backend.h). A new device is one more line in
// each function here and, when it needs no LLVM, in linked_runtime_without_llvm.cc.
#include "runtime/cpu/cpu_device.h"
#include "runtime/cuda/cuda_device.h"
#include "runtime/device_registry.h"
#include "runtime/jit/cpu_backend.h"
#include "runtime/jit/cuda_backend.h"
#include "runtime/jit/jit_backend.h"

namespace tile_ir::runtime {

const DeviceRegistry& LinkedDevices() {
  static const DeviceRegistry* registry = [] {
    auto* made = new DeviceRegistry;
    made->Add("cpu", OpenCpuTarget);
    made->Add("cuda", cuda::OpenCudaTarget);
    return made;
  }();
  return *registry;
}

namespace jit {

const JitBackendRegistry& LinkedJitBackends() {
  static const JitBackendRegistry* registry = [] {
    auto* made = new JitBackendRegistry;
    made->Add("cpu", OpenCpuJitBackend);
    made->Add("cuda", OpenCudaJitBackend);
    return made;
  }();
  return *registry;
}

}  // namespace jit
}  // namespace tile_ir::runtime
