// The device library (targets/cuda/device/*.cuh), embedded in the binary at
// build time so that NVRTC can compile generated code with no file on disk:
// each header is named "tl/<file>", as the generated code includes it.
#ifndef TARGETS_CUDA_DEVICE_HEADERS_H_
#define TARGETS_CUDA_DEVICE_HEADERS_H_

#include <cstdint>

#include "absl/types/span.h"
#include "targets/c_source/embedded_file.h"

namespace tile_ir::cuda {

// Every header of the library, sorted by name.
absl::Span<const c_source::EmbeddedFile> DeviceHeaders();

// Changes whenever the library does (c_source::Fingerprint), for cache keys.
uint64_t DeviceLibraryFingerprint();

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_DEVICE_HEADERS_H_
