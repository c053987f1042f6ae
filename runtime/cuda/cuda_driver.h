// The CUDA driver API, loaded at run time with dlopen("libcuda.so.1") as
// Triton and TileLang do: binaries build and run on machines without CUDA and
// use the GPU where there is one. The few types and constants used are
// declared here with cuda.h's values, so building needs no CUDA headers.
#ifndef RUNTIME_CUDA_CUDA_DRIVER_H_
#define RUNTIME_CUDA_CUDA_DRIVER_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tile_ir::runtime::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;  // NOLINT(runtime/int): the driver's type
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;  // kernels run on the default stream, nullptr
using CUevent = struct CUevent_st*;

inline constexpr CUresult kCudaSuccess = 0;
inline constexpr CUresult kCudaErrorOutOfMemory = 2;
inline constexpr CUresult kCudaErrorStubLibrary = 34;
inline constexpr CUresult kCudaErrorInsufficientDriver = 35;
inline constexpr CUresult kCudaErrorNoDevice = 100;

// CUdevice_attribute values.
inline constexpr int kDeviceAttributeMaxThreadsPerBlock = 1;
inline constexpr int kDeviceAttributeMultiprocessorCount = 16;
inline constexpr int kDeviceAttributeComputeCapabilityMajor = 75;
inline constexpr int kDeviceAttributeComputeCapabilityMinor = 76;
inline constexpr int kDeviceAttributeMaxSharedMemoryPerBlockOptin = 97;
inline constexpr int kDeviceAttributeL2CacheSize = 38;
inline constexpr int kDeviceAttributeMaxGridDimX = 5;  // Y is 6, Z 7
// CUfunction_attribute values.
inline constexpr int kFuncAttributeMaxThreadsPerBlock = 0;
inline constexpr int kFuncAttributeNumRegs = 4;
inline constexpr int kFuncAttributeMaxDynamicSharedSizeBytes = 8;
// Static shared memory beyond this needs the dynamic-size opt-in.
inline constexpr int kDefaultSharedMemoryBytes = 48 * 1024;

// The entry points, named like the API (the versioned symbols cuda.h maps
// them to: cuMemAlloc is cuMemAlloc_v2, and so on).
struct CudaDriverApi {
  CUresult (*cuInit)(unsigned int flags);
  CUresult (*cuDriverGetVersion)(int* version);
  CUresult (*cuGetErrorName)(CUresult error, const char** name);
  CUresult (*cuGetErrorString)(CUresult error, const char** text);
  CUresult (*cuDeviceGetCount)(int* count);
  CUresult (*cuDeviceGet)(CUdevice* device, int ordinal);
  CUresult (*cuDeviceGetName)(char* name, int length, CUdevice device);
  CUresult (*cuDeviceGetAttribute)(int* value, int attribute, CUdevice device);
  CUresult (*cuDeviceTotalMem)(size_t* bytes, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext* context, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device);
  CUresult (*cuCtxSetCurrent)(CUcontext context);
  CUresult (*cuCtxGetCurrent)(CUcontext* context);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadData)(CUmodule* module, const void* image);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuModuleGetFunction)(CUfunction* function, CUmodule module, const char* name);
  CUresult (*cuFuncGetAttribute)(int* value, int attribute, CUfunction function);
  CUresult (*cuFuncSetAttribute)(CUfunction function, int attribute, int value);
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned int grid_x, unsigned int grid_y,
                             unsigned int grid_z, unsigned int block_x, unsigned int block_y,
                             unsigned int block_z, unsigned int shared_bytes, CUstream stream,
                             void** params, void** extra);
  CUresult (*cuMemAlloc)(CUdeviceptr* pointer, size_t bytes);
  CUresult (*cuMemFree)(CUdeviceptr pointer);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr destination, const void* source, size_t bytes);
  CUresult (*cuMemcpyDtoH)(void* destination, CUdeviceptr source, size_t bytes);
  CUresult (*cuMemsetD8)(CUdeviceptr destination, unsigned char value, size_t bytes);
  CUresult (*cuEventCreate)(CUevent* event, unsigned int flags);
  CUresult (*cuEventDestroy)(CUevent event);
  CUresult (*cuEventRecord)(CUevent event, CUstream stream);
  CUresult (*cuEventElapsedTime)(float* milliseconds, CUevent start, CUevent end);
  // CUDA 12 drivers and newer; nullptr before (kernels with TMA loads then fail to load).
  CUresult (*cuTensorMapEncodeTiled)(void* tensor_map, int data_type, unsigned int rank,
                                     void* address, const unsigned long long* dims,  // NOLINT
                                     const unsigned long long* strides,              // NOLINT
                                     const unsigned int* box, const unsigned int* element_strides,
                                     int interleave, int swizzle, int l2_promotion, int oob_fill);
};

class CudaDriver {
 public:
  // The process's driver, loaded and initialized (cuInit) on first use; later
  // calls return the same driver or the same error. Unavailable with "cuda:
  // libcuda.so.1 not found (no NVIDIA driver on this machine)" without a
  // driver, and a message saying so when the driver finds no GPU.
  static absl::StatusOr<const CudaDriver*> Get();

  // Loads and initializes the driver in `library` (a file name the dynamic
  // loader searches for, or a path), for tests. The handle stays open for
  // the process's life: unloading a driver is never safe.
  static absl::StatusOr<std::unique_ptr<CudaDriver>> Load(const std::string& library);

  const CudaDriverApi& api() const { return api_; }
  // "13.0" from cuDriverGetVersion.
  const std::string& version() const { return version_; }

  // OK for kCudaSuccess, else an error naming the call and the driver's
  // message: "cuda: cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of
  // memory)". Out of memory is ResourceExhausted; a missing driver or GPU is
  // Unavailable; anything else is Internal.
  absl::Status Check(CUresult result, std::string_view call) const;

 private:
  CudaDriver() = default;
  // "CUDA_ERROR_OUT_OF_MEMORY (out of memory)", or "error 2" when the driver
  // cannot name it (a stub library).
  std::string Describe(CUresult result) const;

  CudaDriverApi api_{};
  std::string version_;
};

}  // namespace tile_ir::runtime::cuda

#endif  // RUNTIME_CUDA_CUDA_DRIVER_H_
