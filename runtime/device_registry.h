// Devices by target name. Each device implementation provides a registration
// library (//runtime/cpu:cpu_device_registration, //runtime/cuda:
// cuda_device_registration) that adds its factory when linked, so a binary
// opens exactly the devices it links: the GPU machine's tools link CUDA and
// never LLVM.
#ifndef RUNTIME_DEVICE_REGISTRY_H_
#define RUNTIME_DEVICE_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/device_base.h"

namespace tile_ir::runtime {

// Opens a device for the whole target string ("cuda", "cuda:sm_90a"): the
// factory decides what a suffix after the colon means.
using DeviceFactory =
    std::function<absl::StatusOr<std::unique_ptr<Device>>(std::string_view target)>;

// Adds the factory for target names whose part before any ':' is `name`.
// AlreadyExists when the name is taken. Thread-safe.
absl::Status RegisterDeviceFactory(std::string_view name, DeviceFactory factory);

// The registered names, sorted.
std::vector<std::string> RegisteredDeviceNames();

// The device for `target`: NotFound (listing the registered names) when no
// factory has its name, otherwise whatever the factory answers (Unavailable
// when, say, the driver or the GPU is missing).
absl::StatusOr<std::unique_ptr<Device>> OpenDevice(std::string_view target);

}  // namespace tile_ir::runtime

#endif  // RUNTIME_DEVICE_REGISTRY_H_
