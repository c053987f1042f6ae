// A kernel loaded on a GPU: its cubin as a driver module, launches laid out
// by the CUDA calling convention (docs/LOWERING.md: one parameter per buffer
// pointer and scalar value, then one per symbolic dimension), timing with
// CUDA events. Prepare and Enqueue split Launch for callers that launch one
// bound argument set many times (the launch-overhead benchmark).
#ifndef RUNTIME_CUDA_CUDA_KERNEL_H_
#define RUNTIME_CUDA_CUDA_KERNEL_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/argument_signature.h"
#include "runtime/cuda/cuda_context.h"
#include "runtime/device_base.h"
#include "runtime/kernel_args.h"
#include "targets/cuda/tensor_maps.h"
#include "targets/target.h"
#include "tile_ir/module.h"

namespace tile_ir::runtime::cuda {

using ::tile_ir::cuda::TensorMapUse;

// A CUtensorMap: 128 bytes, 64-byte aligned.
struct alignas(64) CudaTensorMap {
  uint64_t opaque[16] = {};
};

// A launch with its arguments bound and laid out, to enqueue any number of
// times. Move-only: `params` points into `slots` and `tensor_maps`.
struct CudaLaunch {
  CudaLaunch() = default;
  CudaLaunch(CudaLaunch&&) = default;
  CudaLaunch& operator=(CudaLaunch&&) = default;

  unsigned int grid[3] = {1, 1, 1};
  unsigned int block[3] = {1, 1, 1};
  unsigned int shared_bytes = 0;
  std::vector<uint64_t> slots;  // one 8-byte value per kernel parameter, then per dimension
  // The tensor maps of the kernel's TMA loads (targets/cuda/tensor_maps.h), encoded for this
  // launch's tensors: parameters after the dimensions.
  std::vector<CudaTensorMap> tensor_maps;
  std::vector<void*> params;    // &slots[i], then &tensor_maps[j], as cuLaunchKernel takes them
};

class CudaKernel final : public LoadedKernel {
 public:
  // Loads the cubin a CUDA target compiled on the context's GPU. Errors name
  // the kernel: a binary that is not a cubin, a cubin the driver refuses, more
  // threads than the compiled code can run, more shared memory than the GPU has.
  static absl::StatusOr<std::unique_ptr<CudaKernel>> Load(std::shared_ptr<CudaContext> context,
                                                          targets::CompiledKernel compiled);
  CudaKernel(const CudaKernel&) = delete;
  CudaKernel& operator=(const CudaKernel&) = delete;
  ~CudaKernel() override;

  const KernelNode& signature() const override { return *kernel_; }
  // Binds (kDLCUDA tensors, data 16-byte aligned for vector accesses),
  // launches on the default stream, waits and checks for errors.
  absl::Status Launch(const std::vector<KernelArg>& args) override;
  // Binds and enqueues on `stream` (a CUstream of this context; nullptr: the default stream).
  absl::Status LaunchAsync(const std::vector<KernelArg>& args, void* stream) override;
  // Launch timed with CUDA events recorded around the kernel, queued behind an L2 flush
  // (CudaContext::FlushL2), as triton.testing.do_bench times the peers.
  absl::StatusOr<double> TimedLaunch(const std::vector<KernelArg>& args) override;
  // The CUDA source and PTX of a fresh compile, then the cubin.
  std::vector<KernelArtifact> artifacts() const override { return KernelArtifacts(compiled_); }

  // The binding and layout half of Launch.
  absl::StatusOr<CudaLaunch> Prepare(const std::vector<KernelArg>& args) const;
  // The launch half: cuLaunchKernel on `stream` (the default stream when null), without
  // waiting. The context must be current on the calling thread.
  absl::Status Enqueue(const CudaLaunch& launch, CUstream stream = nullptr) const;
  // Waits for everything enqueued and names this kernel in any error.
  absl::Status Synchronize() const;

  const CudaContext& context() const { return *context_; }
  int registers_per_thread() const { return registers_; }
  int64_t dynamic_shared_bytes() const { return compiled_.binary.dynamic_shared_bytes; }

 private:
  CudaKernel(std::shared_ptr<CudaContext> context, targets::CompiledKernel compiled)
      : context_(std::move(context)), compiled_(std::move(compiled)) {}
  absl::Status Error(const absl::Status& status) const;
  absl::Status EncodeTensorMap(const TensorMapUse& use, const std::vector<KernelArg>& args,
                               void* data, CudaTensorMap* map) const;
  // Binds `args` and enqueues them on `stream`: through the last call's launch when they
  // have its signature (runtime/argument_signature.h), else through Prepare, whose launch is
  // then kept for the next call.
  absl::Status BindAndEnqueue(const std::vector<KernelArg>& args, CUstream stream);
  // Writes the tensors' data pointers of `args` (which have the remembered signature) into
  // the remembered launch, and encodes again the tensor maps of moved tensors. False where
  // Prepare must decide (a null or misaligned pointer: its error names the parameter); the
  // driver's error where it refuses a tensor map.
  absl::StatusOr<bool> RebindData(const std::vector<KernelArg>& args);

  std::shared_ptr<CudaContext> context_;
  targets::CompiledKernel compiled_;
  const KernelNode* kernel_ = nullptr;  // in compiled_.lowered
  std::vector<TensorMapUse> tensor_maps_;  // what each launch encodes
  CUmodule module_ = nullptr;
  CUfunction function_ = nullptr;
  int registers_ = 0;
  // The last launch and its arguments' signature; a call that finds the mutex held (another
  // thread launching this kernel) binds from scratch instead of waiting.
  std::mutex last_mutex_;
  ArgumentSignature last_signature_;
  std::optional<CudaLaunch> last_launch_;
};

}  // namespace tile_ir::runtime::cuda

#endif  // RUNTIME_CUDA_CUDA_KERNEL_H_
