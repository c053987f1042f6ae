// Opening the GPU, and the device's Load and Allocate.
#include "runtime/cuda/cuda_device.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "runtime/cuda/cuda_buffer.h"
#include "runtime/cuda/cuda_compile.h"
#include "runtime/cuda/cuda_kernel.h"

namespace tile_ir::runtime::cuda {

std::string CudaDevice::description() const {
  const CudaDeviceInfo& info = context_->info();
  return absl::StrCat("cuda: ", info.name, " (", info.arch, ", ", info.multiprocessors, " SMs, ",
                      info.total_memory_bytes >> 30, " GiB), driver ",
                      context_->driver().version());
}

absl::StatusOr<std::unique_ptr<LoadedKernel>> CudaDevice::Load(const Module& module,
                                                               std::string_view kernel_name) {
  // Compile only the requested kernel, as the CPU device does: the others may
  // not be meant for this device.
  Module single{module.ir_version, module.producer, module.producer_version, {}};
  std::string names;
  for (const Kernel& kernel : module.kernels) {
    if (kernel->name == kernel_name) single.kernels.push_back(kernel);
    absl::StrAppend(&names, names.empty() ? "" : ", ", kernel->name);
  }
  if (single.kernels.empty()) {
    return absl::NotFoundError(absl::StrCat("no kernel named '", std::string(kernel_name),
                                            "' in the module (kernels: ", names, ")"));
  }
  absl::StatusOr<CudaKernelImage> image =
      CompileCudaKernel(single, std::string(kernel_name), context_->info().arch);
  if (!image.ok()) return image.status();
  absl::StatusOr<std::unique_ptr<CudaKernel>> kernel =
      CudaKernel::Load(context_, *std::move(image));
  if (!kernel.ok()) return kernel.status();
  return std::unique_ptr<LoadedKernel>(*std::move(kernel));
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
  if (!options.arch.empty() && options.arch != info.arch) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cuda: GPU ", info.ordinal, " (", info.name, ") is ", info.arch, ", not ", options.arch,
        "; a cubin runs only on the architecture it was compiled for (use --target=cuda)"));
  }
  return std::make_unique<CudaDevice>(*std::move(context));
}

absl::StatusOr<std::unique_ptr<Device>> OpenCudaTarget(std::string_view target) {
  CudaDeviceOptions options;
  if (size_t colon = target.find(':'); colon != std::string_view::npos) {
    options.arch = std::string(target.substr(colon + 1));
  }
  absl::StatusOr<std::unique_ptr<CudaDevice>> device = OpenCudaDevice(options);
  if (!device.ok()) return device.status();
  return std::unique_ptr<Device>(*std::move(device));
}

}  // namespace tile_ir::runtime::cuda
