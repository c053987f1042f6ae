// Opening a GPU's primary context and reading its attributes.
#include "runtime/cuda/cuda_context.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace tile_ir::runtime::cuda {

std::string ArchForComputeCapability(int major, int minor) {
  return absl::StrCat("sm_", major, minor, major >= 9 ? "a" : "");
}

absl::StatusOr<std::shared_ptr<CudaContext>> CudaContext::Open(const CudaDriver& driver,
                                                               int ordinal) {
  const CudaDriverApi& api = driver.api();
  int count = 0;
  if (absl::Status status = driver.Check(api.cuDeviceGetCount(&count), "cuDeviceGetCount");
      !status.ok()) {
    return status;
  }
  if (count == 0) return absl::UnavailableError("cuda: the NVIDIA driver found no GPU");
  if (ordinal < 0 || ordinal >= count) {
    return absl::OutOfRangeError(absl::StrCat("cuda: no GPU ", ordinal, "; this machine has ",
                                              count, count == 1 ? " GPU" : " GPUs", " (0 to ",
                                              count - 1, ")"));
  }
  CUdevice device = 0;
  if (absl::Status status = driver.Check(api.cuDeviceGet(&device, ordinal), "cuDeviceGet");
      !status.ok()) {
    return status;
  }
  CudaDeviceInfo info;
  info.ordinal = ordinal;
  char name[256] = {};
  if (absl::Status status =
          driver.Check(api.cuDeviceGetName(name, sizeof name - 1, device), "cuDeviceGetName");
      !status.ok()) {
    return status;
  }
  info.name = name;
  int shared_optin = 0;
  int l2_bytes = 0;
  const std::pair<int, int*> attributes[] = {
      {kDeviceAttributeComputeCapabilityMajor, &info.major},
      {kDeviceAttributeComputeCapabilityMinor, &info.minor},
      {kDeviceAttributeMultiprocessorCount, &info.multiprocessors},
      {kDeviceAttributeMaxThreadsPerBlock, &info.max_threads_per_block},
      {kDeviceAttributeMaxSharedMemoryPerBlockOptin, &shared_optin},
      {kDeviceAttributeL2CacheSize, &l2_bytes},
      {kDeviceAttributeMaxGridDimX, &info.max_grid[0]},
      {kDeviceAttributeMaxGridDimX + 1, &info.max_grid[1]},
      {kDeviceAttributeMaxGridDimX + 2, &info.max_grid[2]},
  };
  for (const auto& [attribute, value] : attributes) {
    if (absl::Status status = driver.Check(api.cuDeviceGetAttribute(value, attribute, device),
                                           "cuDeviceGetAttribute");
        !status.ok()) {
      return status;
    }
  }
  info.max_shared_memory_per_block = shared_optin;
  info.l2_cache_bytes = l2_bytes;
  info.arch = ArchForComputeCapability(info.major, info.minor);
  size_t total = 0;
  if (absl::Status status = driver.Check(api.cuDeviceTotalMem(&total, device), "cuDeviceTotalMem");
      !status.ok()) {
    return status;
  }
  info.total_memory_bytes = static_cast<int64_t>(total);

  CUcontext context = nullptr;
  if (absl::Status status =
          driver.Check(api.cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
      !status.ok()) {
    return status;
  }
  std::shared_ptr<CudaContext> opened(new CudaContext(driver, device, context, std::move(info)));
  if (absl::Status status = opened->MakeCurrent(); !status.ok()) return status;
  return opened;
}

// A failed release cannot be reported from a destructor; the driver frees the
// context at exit in any case.
CudaContext::~CudaContext() {
  {
    absl::MutexLock lock(&flush_mutex_);
    if (flush_buffer_ != 0 && MakeCurrent().ok()) api().cuMemFree(flush_buffer_);
  }
  api().cuDevicePrimaryCtxRelease(device_);
}

absl::Status CudaContext::FlushL2() const {
  const size_t bytes = 2 * static_cast<size_t>(info_.l2_cache_bytes);
  if (bytes == 0) return absl::OkStatus();
  absl::MutexLock lock(&flush_mutex_);
  if (flush_buffer_ == 0) {
    if (absl::Status status = Check(api().cuMemAlloc(&flush_buffer_, bytes), "cuMemAlloc");
        !status.ok()) {
      flush_buffer_ = 0;
      return status;
    }
  }
  // cuMemsetD8 on device memory returns before the fill is done (CUDA's API synchronization
  // behaviour): it is queued on the default stream, as the launches are.
  return Check(api().cuMemsetD8(flush_buffer_, 0, bytes), "cuMemsetD8");
}

// Every launch makes the context current; asking first is cheaper than setting it again
// when it already is (the common case: one context per process, as torch's primary one).
absl::Status CudaContext::MakeCurrent() const {
  CUcontext current = nullptr;
  if (api().cuCtxGetCurrent(&current) == kCudaSuccess && current == context_) {
    return absl::OkStatus();
  }
  return Check(api().cuCtxSetCurrent(context_), "cuCtxSetCurrent");
}

}  // namespace tile_ir::runtime::cuda
