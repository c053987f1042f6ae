// LinkedDevices() for the GPU machine's binaries: every runtime family but the
// CPU, whose compiler is LLVM (linked_runtime.cc).
#include "runtime/cuda/cuda_device.h"
#include "runtime/device_registry.h"

namespace tile_ir::runtime {

const DeviceRegistry& LinkedDevices() {
  static const DeviceRegistry* registry = [] {
    auto* made = new DeviceRegistry;
    made->Add("cuda", cuda::OpenCudaTarget);
    return made;
  }();
  return *registry;
}

}  // namespace tile_ir::runtime
