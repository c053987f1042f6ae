// LinkedDevices(): every runtime family, the one list (device_registry.h; the
// JIT opens its backends over these devices, jit/jit_backend.h). A new device
// is one more line here and, when it needs no LLVM, in
// linked_runtime_without_llvm.cc.
#include "runtime/cpu/cpu_device.h"
#include "runtime/cuda/cuda_device.h"
#include "runtime/device_registry.h"

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

}  // namespace tile_ir::runtime
