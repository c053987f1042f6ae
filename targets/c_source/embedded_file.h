// A file embedded in the binary at build time (embed_files.sh): the device
// libraries of the C++-source targets travel inside the compiler, so that a
// compile needs no file of the source tree.
#ifndef TARGETS_C_SOURCE_EMBEDDED_FILE_H_
#define TARGETS_C_SOURCE_EMBEDDED_FILE_H_

#include <cstdint>
#include <string_view>

#include "absl/types/span.h"

namespace tile_ir::c_source {

struct EmbeddedFile {
  std::string_view name;  // "tl/common.h": the path the emitted code includes
  std::string_view source;
  std::string_view origin;  // "targets/hip/device/common.h": where it lives in this tree
};

// A 64-bit FNV-1a hash of the files' names and sources (what a compiler sees, so
// not their origins): changes whenever one does, so JIT cache keys can include it.
uint64_t Fingerprint(absl::Span<const EmbeddedFile> files);

}  // namespace tile_ir::c_source

#endif  // TARGETS_C_SOURCE_EMBEDDED_FILE_H_
