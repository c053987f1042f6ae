// The device library (targets/cuda/device/*.cuh), embedded in the binary at
// build time so that NVRTC can compile generated code with no file on disk:
// each header is named "tl/<file>", as the generated code includes it.
#ifndef TARGETS_CUDA_DEVICE_HEADERS_H_
#define TARGETS_CUDA_DEVICE_HEADERS_H_

#include <cstdint>
#include <string_view>

#include "absl/types/span.h"

namespace tile_ir::cuda {

struct DeviceHeader {
  std::string_view name;  // "tl/common.cuh"
  std::string_view source;
};

// Every header of the library, sorted by name.
absl::Span<const DeviceHeader> DeviceHeaders();

// A 64-bit FNV-1a hash of the headers' names and sources: changes whenever
// the library does, so JIT cache keys can include it.
uint64_t DeviceLibraryFingerprint();

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_DEVICE_HEADERS_H_
