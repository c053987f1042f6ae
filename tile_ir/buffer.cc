#include "tile_ir/buffer.h"

namespace tile_ir {

std::string_view MemoryScopeName(MemoryScope scope) {
  switch (scope) {
    case MemoryScope::kGlobal:
      return "global";
    case MemoryScope::kShared:
      return "shared";
    case MemoryScope::kFragment:
      return "fragment";
    case MemoryScope::kLocal:
      return "local";
  }
  return "?";
}

std::optional<MemoryScope> ParseMemoryScope(std::string_view name) {
  for (MemoryScope s : {MemoryScope::kGlobal, MemoryScope::kShared, MemoryScope::kFragment,
                        MemoryScope::kLocal}) {
    if (MemoryScopeName(s) == name) return s;
  }
  return std::nullopt;
}

Buffer BufferNode::Make(std::string name, DataType dtype, std::vector<Expr> shape,
                        MemoryScope scope, std::vector<Expr> strides,
                        std::optional<Layout> layout) {
  return std::make_shared<const BufferNode>(std::move(name), dtype, std::move(shape),
                                            std::move(strides), scope, std::move(layout));
}

Region Region::Full(const Buffer& buffer) {
  Region region{buffer, {}};
  for (const Expr& extent : buffer->shape) {
    region.ranges.push_back({Int(0, extent->dtype()), extent});
  }
  return region;
}

}  // namespace tile_ir
