// The CUDA device: its target is the CUDA target of the GPU's exact
// architecture (which lowers, emits CUDA C++ and compiles it with NVRTC), and
// it loads that target's cubins into the driver; Allocate gives GPU tensors.
// Opening it needs only the NVIDIA driver (libcuda.so.1) and, for compiling,
// NVRTC (libnvrtc.so.13), both loaded with dlopen.
#ifndef RUNTIME_CUDA_CUDA_DEVICE_H_
#define RUNTIME_CUDA_CUDA_DEVICE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "runtime/cuda/cuda_context.h"
#include "runtime/device_base.h"
#include "targets/target.h"
#include "targets/target_name.h"

namespace tile_ir::runtime::cuda {

struct CudaDeviceOptions {
  // The process's driver (CudaDriver::Get) when null; tests pass a fake.
  const CudaDriver* driver = nullptr;
  int ordinal = 0;  // which GPU
  // The target name ("cuda", "cuda:sm_90a{gemm=wgmma}"). Its architecture, when
  // it gives one, must be the GPU's, since a cubin runs only on the architecture
  // it was compiled for; without one the GPU's own is used. Its options are kept.
  targets::TargetName target{"cuda", "", {}};
};

class CudaDevice final : public Device {
 public:
  // `target` compiles for the context's GPU (its architecture is the GPU's).
  CudaDevice(std::shared_ptr<CudaContext> context, std::shared_ptr<const targets::Target> target)
      : context_(std::move(context)), target_(std::move(target)) {}

  std::string name() const override { return "cuda"; }
  // "cuda: NVIDIA H200 (sm_90a, 132 SMs, 140 GiB), driver 13.0"
  std::string description() const override;
  const targets::Target& target() const override { return *target_; }
  // Loads a cubin (CudaKernel::Load).
  absl::StatusOr<std::unique_ptr<LoadedKernel>> LoadCompiled(
      targets::CompiledKernel compiled) override;
  // arch, gpu, cuda_driver and compiler (NVRTC's version, or "unavailable").
  std::vector<std::pair<std::string, std::string>> CacheFields() const override;
  absl::StatusOr<std::unique_ptr<DeviceBuffer>> Allocate(
      DataType dtype, const std::vector<int64_t>& shape) override;

  const std::shared_ptr<CudaContext>& context() const { return context_; }

 private:
  std::shared_ptr<CudaContext> context_;
  std::shared_ptr<const targets::Target> target_;
};

// Loads the driver and opens the GPU, and resolves its target against
// targets::LinkedTargets() (the binary links one of //targets:linked_targets*);
// Unavailable, saying why, on machines without the driver or a GPU.
absl::StatusOr<std::unique_ptr<CudaDevice>> OpenCudaDevice(const CudaDeviceOptions& options = {});

// The device for a target string: "cuda" (GPU 0), "cuda:<arch>", with options.
absl::StatusOr<std::unique_ptr<Device>> OpenCudaTarget(std::string_view target);

}  // namespace tile_ir::runtime::cuda

#endif  // RUNTIME_CUDA_CUDA_DEVICE_H_
