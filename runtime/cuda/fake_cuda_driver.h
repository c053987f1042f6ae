// Controls of the fake CUDA driver (libfake_cuda.so, fake_cuda_driver.cc)
// that tests reach through dlsym: it serves the driver API from host memory,
// runs "kernels" as host callbacks and records what it was asked.
#ifndef RUNTIME_CUDA_FAKE_CUDA_DRIVER_H_
#define RUNTIME_CUDA_FAKE_CUDA_DRIVER_H_

extern "C" {

// What the last cuLaunchKernel was given.
struct FakeCudaLaunch {
  unsigned int grid[3];
  unsigned int block[3];
  unsigned int shared_bytes;
  int launches;  // since the library was loaded
};

// Called by cuLaunchKernel with the entry name and the parameter pointers.
typedef void (*FakeCudaKernelFn)(const char* entry, const FakeCudaLaunch* launch, void** params);

struct FakeCudaControl {
  void (*set_kernel)(FakeCudaKernelFn fn);
  const FakeCudaLaunch* (*last_launch)();
  // The value the last cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)
  // set, or -1.
  int (*dynamic_shared_limit)();
  // What cuFuncGetAttribute(MAX_THREADS_PER_BLOCK) answers (1024 at first).
  void (*set_max_threads)(int threads);
  // The next call of the driver function `name` ("cuLaunchKernel") fails
  // with `code`.
  void (*fail_next)(const char* name, int code);
  // What cuDeviceGetAttribute(MULTIPROCESSOR_COUNT) answers (132 at first).
  void (*set_multiprocessors)(int count);
  // The size of the last cuMemsetD8 (the fake's L2 is 1 MiB).
  unsigned long long (*last_memset_bytes)();  // NOLINT(runtime/int)
};

// The symbol tests look up.
const FakeCudaControl* fake_cuda_control();

// The words of a tensor map (128 bytes) that the fake's cuTensorMapEncodeTiled fills with its
// arguments (maps of rank 2 to 4; the box must be 1 in the leading dimensions): the address, the
// data type, the two inner dimensions and the row pitch, the box, the swizzle, element strides
// (10 * inner + outer) and 100 * interleave + 10 * L2 promotion + OOB fill, then the rank and
// the leading dimensions' extents and byte strides.
enum FakeTensorMapWord {
  kFakeTensorMapAddress = 0,
  kFakeTensorMapDataType,
  kFakeTensorMapInnerDim,
  kFakeTensorMapOuterDim,
  kFakeTensorMapRowBytes,
  kFakeTensorMapBoxInner,
  kFakeTensorMapBoxOuter,
  kFakeTensorMapSwizzle,
  kFakeTensorMapElementStrides,
  kFakeTensorMapOther,
  kFakeTensorMapRank,
  kFakeTensorMapDim2,
  kFakeTensorMapDim3,
  kFakeTensorMapStride2,
  kFakeTensorMapStride3,
};
}

#endif  // RUNTIME_CUDA_FAKE_CUDA_DRIVER_H_
