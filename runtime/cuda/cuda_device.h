// The CUDA device: Load lowers a kernel for the GPU's exact architecture,
// emits CUDA C++, compiles it with NVRTC and loads the cubin; Allocate gives
// GPU tensors. Opening it needs only the NVIDIA driver (libcuda.so.1) and,
// for Load, NVRTC (libnvrtc.so.13), both loaded with dlopen.
#ifndef RUNTIME_CUDA_CUDA_DEVICE_H_
#define RUNTIME_CUDA_CUDA_DEVICE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/cuda/cuda_context.h"
#include "runtime/device_base.h"

namespace tile_ir::runtime::cuda {

struct CudaDeviceOptions {
  // The process's driver (CudaDriver::Get) when null; tests pass a fake.
  const CudaDriver* driver = nullptr;
  int ordinal = 0;  // which GPU
  // The architecture the target string pins ("sm_90a"), or empty for the
  // GPU's own; a pinned one must be the GPU's, since a cubin runs only on
  // the architecture it was compiled for.
  std::string arch;
};

class CudaDevice final : public Device {
 public:
  explicit CudaDevice(std::shared_ptr<CudaContext> context) : context_(std::move(context)) {}

  std::string name() const override { return "cuda"; }
  // "cuda: NVIDIA H200 (sm_90a, 132 SMs, 140 GiB), driver 13.0"
  std::string description() const override;
  absl::StatusOr<std::unique_ptr<LoadedKernel>> Load(const Module& module,
                                                     std::string_view kernel_name) override;
  absl::StatusOr<std::unique_ptr<DeviceBuffer>> Allocate(
      DataType dtype, const std::vector<int64_t>& shape) override;

  const std::shared_ptr<CudaContext>& context() const { return context_; }

 private:
  std::shared_ptr<CudaContext> context_;
};

// Loads the driver and opens the GPU; Unavailable, saying why, on machines
// without the driver or a GPU.
absl::StatusOr<std::unique_ptr<CudaDevice>> OpenCudaDevice(const CudaDeviceOptions& options = {});

// The device for a target string: "cuda" (GPU 0) or "cuda:<arch>".
absl::StatusOr<std::unique_ptr<Device>> OpenCudaTarget(std::string_view target);

}  // namespace tile_ir::runtime::cuda

#endif  // RUNTIME_CUDA_CUDA_DEVICE_H_
