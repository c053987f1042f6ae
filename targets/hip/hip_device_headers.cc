// The fingerprint of the embedded HIP device library.
#include "targets/hip/hip_device_headers.h"

namespace tile_ir::hip {

uint64_t HipDeviceLibraryFingerprint() {
  static const uint64_t fingerprint = c_source::Fingerprint(HipDeviceHeaders());
  return fingerprint;
}

}  // namespace tile_ir::hip
