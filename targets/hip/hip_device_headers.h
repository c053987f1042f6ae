// The HIP device library (targets/hip/device/*.h, with the portable headers of
// targets/c_source/device/), embedded in the binary at build time so that a
// compile needs no file of the source tree: each header is named as the
// generated code includes it, "tl/<file>" and "tl/portable/<file>", and
// hipcc_compiler writes them beside the source.
#ifndef TARGETS_HIP_HIP_DEVICE_HEADERS_H_
#define TARGETS_HIP_HIP_DEVICE_HEADERS_H_

#include <cstdint>

#include "absl/types/span.h"
#include "targets/c_source/embedded_file.h"

namespace tile_ir::hip {

// Every header of the library: HIP's, then the portable ones, each sorted by name.
absl::Span<const c_source::EmbeddedFile> HipDeviceHeaders();

// Changes whenever the library does (c_source::Fingerprint), for cache keys.
uint64_t HipDeviceLibraryFingerprint();

}  // namespace tile_ir::hip

#endif  // TARGETS_HIP_HIP_DEVICE_HEADERS_H_
