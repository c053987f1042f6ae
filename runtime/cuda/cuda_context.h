// One GPU as the driver sees it: its primary context (shared with any other
// CUDA user in the process, as the CUDA runtime shares it) and the facts the
// device needs: name, architecture, shared-memory limit.
#ifndef RUNTIME_CUDA_CUDA_CONTEXT_H_
#define RUNTIME_CUDA_CUDA_CONTEXT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "runtime/cuda/cuda_driver.h"

namespace tile_ir::runtime::cuda {

struct CudaDeviceInfo {
  int ordinal = 0;
  std::string name;  // "NVIDIA H200"
  int major = 0;     // compute capability
  int minor = 0;
  std::string arch;  // what NVRTC compiles for: "sm_90a", "sm_80"
  int multiprocessors = 0;
  int max_threads_per_block = 0;
  int64_t max_shared_memory_per_block = 0;  // with the dynamic-size opt-in
  int64_t total_memory_bytes = 0;
  int64_t l2_cache_bytes = 0;
  int max_grid[3] = {0, 0, 0};  // blocks per launch along x, y, z
};

// The NVRTC architecture for a compute capability: "sm_<major><minor>", with
// the "a" suffix from 9.0 on, whose architecture-specific instructions (wgmma,
// setmaxnreg) exist only in code compiled for exactly that chip.
std::string ArchForComputeCapability(int major, int minor);

class CudaContext {
 public:
  // Retains the primary context of GPU `ordinal` and reads its facts.
  // Unavailable when the driver sees no GPU; OutOfRange for an ordinal past
  // the last GPU.
  static absl::StatusOr<std::shared_ptr<CudaContext>> Open(const CudaDriver& driver, int ordinal);

  CudaContext(const CudaContext&) = delete;
  CudaContext& operator=(const CudaContext&) = delete;
  ~CudaContext();

  // Makes the context current on the calling thread; every thread that calls
  // the driver for this device does this first.
  absl::Status MakeCurrent() const;

  const CudaDriverApi& api() const { return driver_.api(); }
  const CudaDriver& driver() const { return driver_; }
  absl::Status Check(CUresult result, std::string_view call) const {
    return driver_.Check(result, call);
  }
  const CudaDeviceInfo& info() const { return info_; }

  // Overwrites twice the L2's size of device memory on the default stream, without waiting:
  // queued ahead of a timed launch, it leaves none of the kernel's operands in the L2 and keeps
  // the GPU busy while the host enqueues the launch (what triton.testing.do_bench does before
  // each call it times, so our timings and the peers' are taken alike). The buffer is
  // allocated on first use and kept for the context's life.
  absl::Status FlushL2() const;

 private:
  CudaContext(const CudaDriver& driver, CUdevice device, CUcontext context, CudaDeviceInfo info)
      : driver_(driver), device_(device), context_(context), info_(std::move(info)) {}

  const CudaDriver& driver_;
  CUdevice device_;
  CUcontext context_;
  CudaDeviceInfo info_;
  mutable absl::Mutex flush_mutex_;
  mutable CUdeviceptr flush_buffer_ ABSL_GUARDED_BY(flush_mutex_) = 0;
};

}  // namespace tile_ir::runtime::cuda

#endif  // RUNTIME_CUDA_CUDA_CONTEXT_H_
