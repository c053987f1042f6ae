// The device library (targets/cuda/device/*.cuh and prelude.h, with the portable
// headers of targets/c_source/device/), embedded in the binary at build time so
// that NVRTC can compile generated code with no file on disk: each header is
// named as the generated code includes it, "tl/<file>" and "tl/portable/<file>".
#ifndef TARGETS_CUDA_DEVICE_HEADERS_H_
#define TARGETS_CUDA_DEVICE_HEADERS_H_

#include <cstdint>

#include "absl/types/span.h"
#include "targets/c_source/embedded_file.h"

namespace tile_ir::cuda {

// Every header of the library: CUDA's, then the portable ones, each sorted by name.
absl::Span<const c_source::EmbeddedFile> DeviceHeaders();

// Changes whenever the library does (c_source::Fingerprint), for cache keys.
uint64_t DeviceLibraryFingerprint();

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_DEVICE_HEADERS_H_
