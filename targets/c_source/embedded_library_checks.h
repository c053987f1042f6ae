// The checks every embedded device library's test makes (CUDA's, HIP's): each header names the
// file it came from, and every #include between them resolves inside the library, so that the
// library compiles from the embedded copies alone.
#ifndef TARGETS_C_SOURCE_EMBEDDED_LIBRARY_CHECKS_H_
#define TARGETS_C_SOURCE_EMBEDDED_LIBRARY_CHECKS_H_

#include <string_view>

#include "absl/types/span.h"
#include "targets/c_source/embedded_file.h"

namespace tile_ir::c_source {

// A header under "tl/portable/" came from targets/c_source/device/, any other from
// `vendor_dir` ("targets/cuda/device/"), each under its own base name.
void ExpectOriginsIn(absl::Span<const EmbeddedFile> library, std::string_view vendor_dir);

// Every `#include "..."` of a header names another header of the library.
void ExpectIncludesResolve(absl::Span<const EmbeddedFile> library);

}  // namespace tile_ir::c_source

#endif  // TARGETS_C_SOURCE_EMBEDDED_LIBRARY_CHECKS_H_
