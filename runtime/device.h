// Opening devices by target name. The device interface itself (Device,
// LoadedKernel) is in device_base.h; the CPU device is in runtime/cpu; GPU
// devices will load their drivers with dlopen and report a clear error when
// the driver or the GPU is missing.
#ifndef RUNTIME_DEVICE_H_
#define RUNTIME_DEVICE_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "runtime/device_base.h"

namespace tile_ir::runtime {

// The device for a target name ("cpu"; an architecture suffix such as
// "cuda:sm_90a" names the device before the colon), or an error saying why it
// is not available here: NotFound for an unknown name (listing the known
// ones), Unimplemented for a known target whose runtime is not built yet.
absl::StatusOr<std::unique_ptr<Device>> OpenDevice(std::string_view target);

}  // namespace tile_ir::runtime

#endif  // RUNTIME_DEVICE_H_
