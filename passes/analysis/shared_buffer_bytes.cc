// The bytes a shared buffer occupies.
#include "passes/analysis/shared_buffer_bytes.h"

#include <vector>

#include "tile_ir/expr.h"

namespace tile_ir::passes {

std::optional<int64_t> SharedBufferBytes(const BufferNode& buffer) {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  for (const Expr& extent : buffer.shape) shape.push_back(AsConstInt(extent).value_or(-1));
  for (const Expr& stride : buffer.strides) strides.push_back(AsConstInt(stride).value_or(-1));
  int64_t elements = 1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0 || (!strides.empty() && strides[d] < 0)) return std::nullopt;
    if (shape[d] == 0) return 0;
    // Dense: the product of the shape; strided: one past the largest offset reached.
    elements = strides.empty() ? elements * shape[d] : elements + (shape[d] - 1) * strides[d];
  }
  return (elements * buffer.dtype.bits() + 7) / 8;
}

}  // namespace tile_ir::passes
