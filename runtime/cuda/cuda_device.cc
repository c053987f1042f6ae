// Opening the GPU, and the device's LoadCompiled, CacheFields and Allocate.
#include "runtime/cuda/cuda_device.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/cuda/cuda_buffer.h"
#include "runtime/cuda/cuda_kernel.h"
#include "targets/target_registry.h"

namespace tile_ir::runtime::cuda {

std::string CudaDevice::description() const {
  const CudaDeviceInfo& info = context_->info();
  return absl::StrCat("cuda: ", info.name, " (", info.arch, ", ", info.multiprocessors, " SMs, ",
                      info.total_memory_bytes >> 30, " GiB), driver ",
                      context_->driver().version());
}

absl::StatusOr<std::unique_ptr<LoadedKernel>> CudaDevice::LoadCompiled(
    targets::CompiledKernel compiled) {
  absl::StatusOr<std::unique_ptr<CudaKernel>> kernel =
      CudaKernel::Load(context_, std::move(compiled));
  if (!kernel.ok()) return kernel.status();
  return std::unique_ptr<LoadedKernel>(*std::move(kernel));
}

std::vector<std::pair<std::string, std::string>> CudaDevice::CacheFields() const {
  const CudaDeviceInfo& info = context_->info();
  absl::StatusOr<std::string> compiler = target_->FindCompiler();
  return {{"arch", info.arch},
          {"gpu", info.name},
          {"cuda_driver", context_->driver().version()},
          {"compiler", compiler.ok() ? *compiler : "unavailable"}};
}

absl::StatusOr<std::unique_ptr<DeviceBuffer>> CudaDevice::Allocate(
    DataType dtype, const std::vector<int64_t>& shape) {
  absl::StatusOr<std::unique_ptr<CudaBuffer>> buffer = CudaBuffer::Create(context_, dtype, shape);
  if (!buffer.ok()) return buffer.status();
  return std::unique_ptr<DeviceBuffer>(*std::move(buffer));
}

absl::StatusOr<std::unique_ptr<CudaDevice>> OpenCudaDevice(const CudaDeviceOptions& options) {
  absl::StatusOr<const CudaDriver*> driver = options.driver != nullptr
                                                 ? absl::StatusOr<const CudaDriver*>(options.driver)
                                                 : CudaDriver::Get();
  if (!driver.ok()) return driver.status();
  absl::StatusOr<std::shared_ptr<CudaContext>> context =
      CudaContext::Open(**driver, options.ordinal);
  if (!context.ok()) return context.status();
  const CudaDeviceInfo& info = (*context)->info();
  const std::string& pinned = options.target.arch;
  if (!pinned.empty() && pinned != info.arch) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cuda: GPU ", info.ordinal, " (", info.name, ") is ", info.arch, ", not ", pinned,
        "; a cubin runs only on the architecture it was compiled for (use --target=cuda)"));
  }
  targets::TargetName name = options.target;
  name.arch = info.arch;
  if (name.arch == "sm_90a" && name.Option("persistent") == "on" && name.Option("sms").empty()) {
    // Persistent kernels launch a block per SM of this GPU (the target leaves the count out of
    // its name when it is its default).
    auto at = std::find_if(name.options.begin(), name.options.end(),
                           [](const auto& option) { return option.first > "sms"; });
    name.options.insert(at, {"sms", absl::StrCat(info.multiprocessors)});
  }
  absl::StatusOr<std::shared_ptr<const targets::Target>> target =
      targets::LinkedTargets().Resolve(name);
  if (!target.ok()) return target.status();
  return std::make_unique<CudaDevice>(*std::move(context), *std::move(target));
}

absl::StatusOr<std::unique_ptr<Device>> OpenCudaTarget(std::string_view target) {
  absl::StatusOr<targets::TargetName> name = targets::ParseTargetName(target);
  if (!name.ok()) return name.status();
  CudaDeviceOptions options;
  options.target = *std::move(name);
  absl::StatusOr<std::unique_ptr<CudaDevice>> device = OpenCudaDevice(options);
  if (!device.ok()) return device.status();
  return std::unique_ptr<Device>(*std::move(device));
}

}  // namespace tile_ir::runtime::cuda
