// The fingerprint of the embedded device library (the headers themselves are
// in the generated device_headers_embedded.cc).
#include "targets/cuda/device_headers.h"

namespace tile_ir::cuda {
namespace {

constexpr uint64_t kFnvOffset = 14695981039346656037ull;
constexpr uint64_t kFnvPrime = 1099511628211ull;

uint64_t Mix(uint64_t hash, std::string_view bytes) {
  for (char c : bytes) hash = (hash ^ static_cast<unsigned char>(c)) * kFnvPrime;
  // A separator, so that moving bytes between adjacent strings changes the hash.
  return (hash ^ 0xff) * kFnvPrime;
}

}  // namespace

uint64_t DeviceLibraryFingerprint() {
  uint64_t hash = kFnvOffset;
  for (const DeviceHeader& header : DeviceHeaders()) {
    hash = Mix(Mix(hash, header.name), header.source);
  }
  return hash;
}

}  // namespace tile_ir::cuda
