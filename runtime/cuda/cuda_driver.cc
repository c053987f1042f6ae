// Loading libcuda with dlopen, resolving its entry points, and turning
// CUresult codes into absl::Status.
#include "runtime/cuda/cuda_driver.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"

namespace tile_ir::runtime::cuda {
namespace {

constexpr char kDriverLibrary[] = "libcuda.so.1";

template <typename Fn>
void Resolve(void* handle, const char* symbol, Fn* fn, std::string* missing) {
  *fn = reinterpret_cast<Fn>(dlsym(handle, symbol));
  if (*fn == nullptr) absl::StrAppend(missing, missing->empty() ? "" : ", ", symbol);
}

// The versioned symbols are the ones cuda.h (CUDA 12 and 13) maps each name to.
std::string ResolveAll(void* handle, CudaDriverApi& api) {
  std::string missing;
  Resolve(handle, "cuInit", &api.cuInit, &missing);
  Resolve(handle, "cuDriverGetVersion", &api.cuDriverGetVersion, &missing);
  Resolve(handle, "cuGetErrorName", &api.cuGetErrorName, &missing);
  Resolve(handle, "cuGetErrorString", &api.cuGetErrorString, &missing);
  Resolve(handle, "cuDeviceGetCount", &api.cuDeviceGetCount, &missing);
  Resolve(handle, "cuDeviceGet", &api.cuDeviceGet, &missing);
  Resolve(handle, "cuDeviceGetName", &api.cuDeviceGetName, &missing);
  Resolve(handle, "cuDeviceGetAttribute", &api.cuDeviceGetAttribute, &missing);
  Resolve(handle, "cuDeviceTotalMem_v2", &api.cuDeviceTotalMem, &missing);
  Resolve(handle, "cuDevicePrimaryCtxRetain", &api.cuDevicePrimaryCtxRetain, &missing);
  Resolve(handle, "cuDevicePrimaryCtxRelease_v2", &api.cuDevicePrimaryCtxRelease, &missing);
  Resolve(handle, "cuCtxSetCurrent", &api.cuCtxSetCurrent, &missing);
  Resolve(handle, "cuCtxGetCurrent", &api.cuCtxGetCurrent, &missing);
  Resolve(handle, "cuCtxSynchronize", &api.cuCtxSynchronize, &missing);
  Resolve(handle, "cuModuleLoadData", &api.cuModuleLoadData, &missing);
  Resolve(handle, "cuModuleUnload", &api.cuModuleUnload, &missing);
  Resolve(handle, "cuModuleGetFunction", &api.cuModuleGetFunction, &missing);
  Resolve(handle, "cuFuncGetAttribute", &api.cuFuncGetAttribute, &missing);
  Resolve(handle, "cuFuncSetAttribute", &api.cuFuncSetAttribute, &missing);
  Resolve(handle, "cuLaunchKernel", &api.cuLaunchKernel, &missing);
  Resolve(handle, "cuMemAlloc_v2", &api.cuMemAlloc, &missing);
  Resolve(handle, "cuMemFree_v2", &api.cuMemFree, &missing);
  Resolve(handle, "cuMemcpyHtoD_v2", &api.cuMemcpyHtoD, &missing);
  Resolve(handle, "cuMemcpyDtoH_v2", &api.cuMemcpyDtoH, &missing);
  Resolve(handle, "cuMemsetD8_v2", &api.cuMemsetD8, &missing);
  Resolve(handle, "cuEventCreate", &api.cuEventCreate, &missing);
  Resolve(handle, "cuEventDestroy_v2", &api.cuEventDestroy, &missing);
  Resolve(handle, "cuEventRecord", &api.cuEventRecord, &missing);
  Resolve(handle, "cuEventElapsedTime", &api.cuEventElapsedTime, &missing);
  // Optional: a driver before CUDA 12 runs every kernel but those with TMA loads.
  api.cuTensorMapEncodeTiled = reinterpret_cast<decltype(api.cuTensorMapEncodeTiled)>(
      dlsym(handle, "cuTensorMapEncodeTiled"));
  return missing;
}

}  // namespace

absl::StatusOr<const CudaDriver*> CudaDriver::Get() {
  static const absl::StatusOr<std::unique_ptr<CudaDriver>>* driver =
      new absl::StatusOr<std::unique_ptr<CudaDriver>>(Load(kDriverLibrary));
  if (!driver->ok()) return driver->status();
  return driver->value().get();
}

absl::StatusOr<std::unique_ptr<CudaDriver>> CudaDriver::Load(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("cuda: ", library, " not found (no NVIDIA driver on this machine)"));
  }
  std::unique_ptr<CudaDriver> driver(new CudaDriver);
  if (std::string missing = ResolveAll(handle, driver->api_); !missing.empty()) {
    return absl::UnavailableError(absl::StrCat("cuda: the driver in ", library, " lacks ", missing,
                                               " (it is older than CUDA 12; update the driver)"));
  }
  const CudaDriverApi& api = driver->api_;
  CUresult init = api.cuInit(0);
  if (init == kCudaErrorNoDevice) {
    return absl::UnavailableError(absl::StrCat("cuda: the NVIDIA driver (", library,
                                               ") found no GPU: cuInit answered ",
                                               driver->Describe(init)));
  }
  if (absl::Status status = driver->Check(init, "cuInit"); !status.ok()) return status;
  int version = 0;
  if (absl::Status status = driver->Check(api.cuDriverGetVersion(&version), "cuDriverGetVersion");
      !status.ok()) {
    return status;
  }
  driver->version_ = absl::StrCat(version / 1000, ".", version % 1000 / 10);
  return driver;
}

std::string CudaDriver::Describe(CUresult result) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api_.cuGetErrorName(result, &name) != kCudaSuccess || name == nullptr) {
    // The toolkit's stub library names no error, not even its own.
    if (result == kCudaErrorStubLibrary) {
      return "CUDA_ERROR_STUB_LIBRARY (error 34: the CUDA toolkit's stub libcuda, not a driver)";
    }
    return absl::StrCat("error ", result);
  }
  if (api_.cuGetErrorString(result, &text) != kCudaSuccess || text == nullptr) return name;
  return absl::StrCat(name, " (", text, ")");
}

absl::Status CudaDriver::Check(CUresult result, std::string_view call) const {
  if (result == kCudaSuccess) return absl::OkStatus();
  std::string message = absl::StrCat("cuda: ", std::string(call), " failed: ", Describe(result));
  switch (result) {
    case kCudaErrorOutOfMemory: return absl::ResourceExhaustedError(message);
    case kCudaErrorStubLibrary:
    case kCudaErrorInsufficientDriver:
    case kCudaErrorNoDevice: return absl::UnavailableError(message);
    default: return absl::InternalError(message);
  }
}

}  // namespace tile_ir::runtime::cuda
