// The fingerprint of embedded files.
#include "targets/c_source/embedded_file.h"

namespace tile_ir::c_source {

uint64_t Fingerprint(absl::Span<const EmbeddedFile> files) {
  uint64_t hash = 14695981039346656037ull;
  auto mix = [&hash](std::string_view bytes) {
    for (unsigned char c : bytes) {
      hash ^= c;
      hash *= 1099511628211ull;
    }
    hash ^= 0xff;  // a separator, so that moving bytes between fields changes the hash
    hash *= 1099511628211ull;
  };
  for (const EmbeddedFile& file : files) {
    mix(file.name);
    mix(file.source);
  }
  return hash;
}

}  // namespace tile_ir::c_source
