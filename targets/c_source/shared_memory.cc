// Buffer sizes and the shared-memory pool of a kernel.
#include "targets/c_source/shared_memory.h"

#include <algorithm>

#include "targets/c_source/c_types.h"
#include "tile_ir/visitor.h"

namespace tile_ir::c_source {
namespace {

class SharedPoolSize : public IRVisitor {
 public:
  int64_t bytes() const { return bytes_; }

 protected:
  void VisitAllocate(const Allocate& node) override {
    if (node.buffer->scope == MemoryScope::kShared && node.shared_offset) {
      std::optional<int64_t> elements = BufferElements(*node.buffer);
      if (elements) {
        bytes_ = std::max(
            bytes_, *node.shared_offset + StorageBytes(node.buffer->dtype.scalar(), *elements));
      }
    }
    IRVisitor::VisitAllocate(node);
  }

 private:
  int64_t bytes_ = 0;
};

}  // namespace

std::optional<int64_t> BufferElements(const BufferNode& buffer) {
  int64_t elements = 1;
  int64_t farthest = 0;
  for (int d = 0; d < buffer.rank(); ++d) {
    std::optional<int64_t> extent = AsConstInt(buffer.shape[d]);
    if (!extent || *extent < 0) return std::nullopt;
    if (*extent == 0) return 0;
    elements *= *extent;
    if (!buffer.strides.empty()) {
      std::optional<int64_t> stride = AsConstInt(buffer.strides[d]);
      if (!stride || *stride < 0) return std::nullopt;
      farthest += (*extent - 1) * *stride;
    }
  }
  return buffer.strides.empty() ? elements : farthest + 1;
}

int64_t SharedMemoryBytes(const KernelNode& kernel) {
  SharedPoolSize size;
  size.Visit(kernel.body);
  return size.bytes();
}

}  // namespace tile_ir::c_source
