// A device library's headers pasted into the source that includes them, so that the source
// compiles as it is (`nvcc -c k.cu`, `hipcc --genco k.hip`) with no include path and no file of
// this tree: the form to hand to someone else's build.
#ifndef TARGETS_C_SOURCE_INLINE_INCLUDES_H_
#define TARGETS_C_SOURCE_INLINE_INCLUDES_H_

#include <string>
#include <string_view>

#include "absl/types/span.h"
#include "targets/c_source/embedded_file.h"

namespace tile_ir::c_source {

// `source` with every line `#include "NAME"` whose NAME is one of `files` replaced by that
// file's text, in include order: a file's own such includes are replaced first, each file is
// pasted once (a later include of it becomes a comment saying so), and its `#pragma once` is
// dropped, which in a main file only draws a warning. A comment before each pasted file names
// where it came from (its origin, e.g. "targets/cuda/device/arith.cuh"). Other includes
// (<cuda_fp16.h>) are kept.
std::string InlineIncludes(std::string_view source, absl::Span<const EmbeddedFile> files);

}  // namespace tile_ir::c_source

#endif  // TARGETS_C_SOURCE_INLINE_INCLUDES_H_
