// The table of devices by target name.
#include "runtime/device.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "runtime/cpu/cpu_device.h"

namespace tile_ir::runtime {

absl::StatusOr<std::unique_ptr<Device>> OpenDevice(std::string_view target) {
  std::string_view name = target.substr(0, target.find(':'));
  if (name == "cpu") {
    if (name.size() != target.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("target '", std::string(target),
                       "': the cpu device takes no architecture (it compiles for the host CPU)"));
    }
    return OpenCpuDevice();
  }
  if (name == "cuda" || name == "hip" || name == "metal") {
    return absl::UnimplementedError(
        absl::StrCat("the ", std::string(name),
                     " runtime is not built yet; kernels run on the cpu device only"));
  }
  return absl::NotFoundError(absl::StrCat("unknown target '", std::string(target),
                                          "'; known targets: cpu, cuda, hip, metal "
                                          "(only cpu runs kernels so far)"));
}

}  // namespace tile_ir::runtime
