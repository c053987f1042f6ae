// The fingerprint of the embedded device library (the headers themselves are
// in the generated device_headers_embedded.cc).
#include "targets/cuda/device_headers.h"

namespace tile_ir::cuda {

uint64_t DeviceLibraryFingerprint() {
  static const uint64_t fingerprint = c_source::Fingerprint(DeviceHeaders());
  return fingerprint;
}

}  // namespace tile_ir::cuda
