// A fake NVIDIA driver for tests on machines without a GPU: the driver API
// symbols the runtime resolves, over host memory (a CUdeviceptr is a host
// address), one "H200" of compute capability 9.0, kernels run as a host
// callback, and failures on request (fake_cuda_driver.h).
#include "runtime/cuda/fake_cuda_driver.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace {

using CUresult = int;
using CUdeviceptr = unsigned long long;  // NOLINT(runtime/int): the driver's type

constexpr CUresult kSuccess = 0;
constexpr CUresult kInvalidValue = 1;
constexpr CUresult kInvalidImage = 200;
constexpr CUresult kNotFound = 500;

struct State {
  std::mutex mutex;
  FakeCudaKernelFn kernel = nullptr;
  FakeCudaLaunch last{};
  int dynamic_shared_limit = -1;
  int max_threads = 1024;
  int multiprocessors = 132;
  unsigned long long memset_bytes = 0;  // NOLINT(runtime/int): of the last cuMemsetD8
  std::string fail_name;
  int fail_code = 0;
  std::string entry;
  void* current_context = nullptr;
};

State& state() {
  static State* s = new State;
  return *s;
}

// The failure tests asked of `name`, once.
CUresult Injected(const char* name) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.fail_name != name) return kSuccess;
  s.fail_name.clear();
  return s.fail_code;
}

void SetKernel(FakeCudaKernelFn fn) { state().kernel = fn; }
const FakeCudaLaunch* LastLaunch() { return &state().last; }
int DynamicSharedLimit() { return state().dynamic_shared_limit; }
void SetMaxThreads(int threads) { state().max_threads = threads; }
void SetMultiprocessors(int count) { state().multiprocessors = count; }
unsigned long long LastMemsetBytes() { return state().memset_bytes; }  // NOLINT(runtime/int)
void FailNext(const char* name, int code) {
  std::lock_guard<std::mutex> lock(state().mutex);
  state().fail_name = name;
  state().fail_code = code;
}

const FakeCudaControl kControl = {SetKernel, LastLaunch,         DynamicSharedLimit, SetMaxThreads,
                                  FailNext,  SetMultiprocessors, LastMemsetBytes};

// Any non-null handle will do: the runtime only passes them back.
void* Handle() { return reinterpret_cast<void*>(0x1000); }

}  // namespace

extern "C" {

const FakeCudaControl* fake_cuda_control() { return &kControl; }

CUresult cuInit(unsigned int) { return Injected("cuInit"); }
CUresult cuDriverGetVersion(int* version) {
  *version = 13000;
  return kSuccess;
}
CUresult cuGetErrorName(CUresult error, const char** name) {
  *name = error == 719 ? "CUDA_ERROR_LAUNCH_FAILED" : "CUDA_ERROR_FAKE";
  return kSuccess;
}
CUresult cuGetErrorString(CUresult, const char** text) {
  *text = "failure injected by the fake driver";
  return kSuccess;
}
CUresult cuDeviceGetCount(int* count) {
  *count = 1;
  return Injected("cuDeviceGetCount");
}
CUresult cuDeviceGet(int* device, int ordinal) {
  *device = ordinal;
  return kSuccess;
}
CUresult cuDeviceGetName(char* name, int length, int) {
  std::strncpy(name, "Fake H200", length);
  return kSuccess;
}
CUresult cuDeviceGetAttribute(int* value, int attribute, int) {
  switch (attribute) {
    case 1: *value = 1024; break;     // max threads per block
    case 16: *value = state().multiprocessors; break;
    case 75: *value = 9; break;       // compute capability major
    case 76: *value = 0; break;       // minor
    case 97: *value = 232448; break;  // shared memory per block, opt-in
    case 38: *value = 1 << 20; break;  // L2 bytes (small: timing overwrites twice this)
    case 5: *value = 2147483647; break;  // max grid x
    case 6:                              // max grid y
    case 7: *value = 65535; break;       // max grid z
    default: return kInvalidValue;
  }
  return kSuccess;
}
CUresult cuDeviceTotalMem_v2(size_t* bytes, int) {
  *bytes = size_t{141} << 30;
  return kSuccess;
}
CUresult cuDevicePrimaryCtxRetain(void** context, int) {
  *context = Handle();
  return Injected("cuDevicePrimaryCtxRetain");
}
CUresult cuDevicePrimaryCtxRelease_v2(int) { return kSuccess; }
CUresult cuCtxSetCurrent(void* context) {
  state().current_context = context;
  return kSuccess;
}
CUresult cuCtxGetCurrent(void** context) {
  *context = state().current_context;
  return kSuccess;
}
CUresult cuCtxSynchronize() { return Injected("cuCtxSynchronize"); }
CUresult cuModuleLoadData(void** module, const void* image) {
  if (std::memcmp(image, "\177ELF", 4) != 0) return kInvalidImage;
  *module = Handle();
  return Injected("cuModuleLoadData");
}
CUresult cuModuleUnload(void*) { return kSuccess; }
CUresult cuModuleGetFunction(void** function, void*, const char* name) {
  state().entry = name;
  *function = Handle();
  return name[0] == '\0' ? kNotFound : kSuccess;
}
CUresult cuFuncGetAttribute(int* value, int attribute, void*) {
  switch (attribute) {
    case 0: *value = state().max_threads; break;
    case 4: *value = 40; break;  // registers per thread
    default: return kInvalidValue;
  }
  return kSuccess;
}
CUresult cuFuncSetAttribute(void*, int attribute, int value) {
  if (attribute == 8) state().dynamic_shared_limit = value;
  return kSuccess;
}
CUresult cuLaunchKernel(void*, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                        unsigned int by, unsigned int bz, unsigned int shared, void*, void** params,
                        void**) {
  if (CUresult injected = Injected("cuLaunchKernel"); injected != kSuccess) return injected;
  State& s = state();
  s.last = {{gx, gy, gz}, {bx, by, bz}, shared, s.last.launches + 1};
  if (s.kernel != nullptr) s.kernel(s.entry.c_str(), &s.last, params);
  return kSuccess;
}
CUresult cuMemAlloc_v2(CUdeviceptr* pointer, size_t bytes) {
  if (CUresult injected = Injected("cuMemAlloc"); injected != kSuccess) return injected;
  *pointer = reinterpret_cast<CUdeviceptr>(std::aligned_alloc(256, (bytes + 255) / 256 * 256));
  return kSuccess;
}
CUresult cuMemFree_v2(CUdeviceptr pointer) {
  std::free(reinterpret_cast<void*>(pointer));
  return kSuccess;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr destination, const void* source, size_t bytes) {
  std::memcpy(reinterpret_cast<void*>(destination), source, bytes);
  return kSuccess;
}
CUresult cuMemcpyDtoH_v2(void* destination, CUdeviceptr source, size_t bytes) {
  std::memcpy(destination, reinterpret_cast<const void*>(source), bytes);
  return kSuccess;
}
CUresult cuMemsetD8_v2(CUdeviceptr destination, unsigned char value, size_t bytes) {
  state().memset_bytes = bytes;
  std::memset(reinterpret_cast<void*>(destination), value, bytes);
  return kSuccess;
}
CUresult cuEventCreate(void** event, unsigned int) {
  *event = Handle();
  return kSuccess;
}
CUresult cuEventDestroy_v2(void*) { return kSuccess; }
CUresult cuEventRecord(void*, void*) { return kSuccess; }
CUresult cuEventElapsedTime(float* milliseconds, void*, void*) {
  *milliseconds = 0.25f;
  return kSuccess;
}

// Not the driver's opaque encoding: the fake writes the arguments into the map's words so that
// a test's kernel callback can read them back (fake_cuda_driver.h, FakeTensorMapWord).
CUresult cuTensorMapEncodeTiled(void* map, int data_type, unsigned int rank, void* address,
                                const unsigned long long* dims,     // NOLINT(runtime/int)
                                const unsigned long long* strides,  // NOLINT(runtime/int)
                                const unsigned int* box, const unsigned int* element_strides,
                                int interleave, int swizzle, int l2_promotion, int oob_fill) {
  if (CUresult injected = Injected("cuTensorMapEncodeTiled"); injected != kSuccess) {
    return injected;
  }
  if (map == nullptr || rank < 2 || rank > 4 || reinterpret_cast<uintptr_t>(map) % 64 != 0 ||
      reinterpret_cast<uintptr_t>(address) % 16 != 0) {
    return kInvalidValue;
  }
  for (unsigned int i = 1; i < rank; ++i) {
    if (strides[i - 1] % 16 != 0 || (i >= 2 && (box[i] != 1 || element_strides[i] != 1))) {
      return kInvalidValue;
    }
  }
  unsigned long long* words = static_cast<unsigned long long*>(map);  // NOLINT(runtime/int)
  words[kFakeTensorMapAddress] = reinterpret_cast<uintptr_t>(address);
  words[kFakeTensorMapDataType] = data_type;
  words[kFakeTensorMapInnerDim] = dims[0];
  words[kFakeTensorMapOuterDim] = dims[1];
  words[kFakeTensorMapRowBytes] = strides[0];
  words[kFakeTensorMapBoxInner] = box[0];
  words[kFakeTensorMapBoxOuter] = box[1];
  words[kFakeTensorMapSwizzle] = swizzle;
  words[kFakeTensorMapElementStrides] = element_strides[0] * 10 + element_strides[1];
  words[kFakeTensorMapOther] = interleave * 100 + l2_promotion * 10 + oob_fill;
  words[kFakeTensorMapRank] = rank;
  for (unsigned int i = 2; i < rank; ++i) {
    words[kFakeTensorMapDim2 + i - 2] = dims[i];
    words[kFakeTensorMapStride2 + i - 2] = strides[i - 1];
  }
  return kSuccess;
}

}  // extern "C"
