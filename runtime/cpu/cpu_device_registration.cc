// Registers the CPU device as "cpu" when linked (the library is alwayslink).
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/cpu/cpu_device.h"
#include "runtime/device_registry.h"

namespace tile_ir::runtime {
namespace {

absl::StatusOr<std::unique_ptr<Device>> OpenCpuTarget(std::string_view target) {
  if (target != "cpu") {
    return absl::InvalidArgumentError(
        absl::StrCat("target '", std::string(target),
                     "': the cpu device takes no architecture (it compiles for the host CPU)"));
  }
  return OpenCpuDevice();
}

const bool kRegistered = RegisterDeviceFactory("cpu", OpenCpuTarget).ok();

}  // namespace
}  // namespace tile_ir::runtime
