// The bytes a shared buffer occupies, as shared-memory planning, barrier insertion and
// software pipelining count them.
#ifndef PASSES_ANALYSIS_SHARED_BUFFER_BYTES_H_
#define PASSES_ANALYSIS_SHARED_BUFFER_BYTES_H_

#include <cstdint>
#include <optional>

#include "tile_ir/buffer.h"

namespace tile_ir::passes {

// The bytes a shared buffer occupies: its elements (the product of its shape, or the span
// its strides reach) times the element size, packed i4 rounded up to bytes. nullopt when a
// shape or stride is not a non-negative constant.
std::optional<int64_t> SharedBufferBytes(const BufferNode& buffer);

}  // namespace tile_ir::passes

#endif  // PASSES_ANALYSIS_SHARED_BUFFER_BYTES_H_
