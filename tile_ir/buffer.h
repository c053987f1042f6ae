// Buffers, their memory scopes and layouts, and regions of them.
//
// A buffer is declared once (a kernel parameter or an Allocate statement) and
// referenced by pointer from loads, stores and tile operations.
#ifndef TILE_IR_BUFFER_H_
#define TILE_IR_BUFFER_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tile_ir/dtype.h"
#include "tile_ir/expr.h"

namespace tile_ir {

enum class MemoryScope : uint8_t {
  kGlobal,    // device memory; kernel parameters
  kShared,    // per block
  kFragment,  // a register tile spread over the block's threads by a layout
  kLocal,     // per thread
};

std::string_view MemoryScopeName(MemoryScope scope);
std::optional<MemoryScope> ParseMemoryScope(std::string_view name);

// An index map from a tile index to a physical position: `inputs` are bound
// only inside `outputs`. For a fragment the outputs are (thread, register); for
// shared memory they are the physical coordinates (swizzles live here).
//
// A fragment layout may replicate: with `replica` set, every element is held by `replicate`
// threads at once, one for each value of `replica` in [0, replicate) (new in ir_version 4).
// The thread output may use `replica`, the other outputs may not: the replicas keep the
// element in the same register, each thread its own copy, and a store writes them all. A row
// vector that every thread holding a row of a tile reads (a row maximum beside an mma
// accumulator) is laid out so, and its reads stay inside each thread.
struct Layout {
  std::vector<VarRef> inputs;
  std::vector<Expr> outputs;
  VarRef replica;
  int64_t replicate = 1;

  bool replicated() const { return replica != nullptr; }
};

class BufferNode {
 public:
  BufferNode(std::string name, DataType dtype, std::vector<Expr> shape, std::vector<Expr> strides,
             MemoryScope scope, std::optional<Layout> layout)
      : name(std::move(name)),
        dtype(dtype),
        shape(std::move(shape)),
        strides(std::move(strides)),
        scope(scope),
        layout(std::move(layout)) {}
  BufferNode(const BufferNode&) = delete;
  BufferNode& operator=(const BufferNode&) = delete;

  // strides empty means dense row-major.
  static Buffer Make(std::string name, DataType dtype, std::vector<Expr> shape, MemoryScope scope,
                     std::vector<Expr> strides = {}, std::optional<Layout> layout = std::nullopt);

  int rank() const { return static_cast<int>(shape.size()); }

  const std::string name;
  const DataType dtype;
  const std::vector<Expr> shape;
  const std::vector<Expr> strides;
  const MemoryScope scope;
  const std::optional<Layout> layout;
};

// A half-open interval [min, min + extent).
struct Range {
  Expr min;
  Expr extent;
};

// A rectangular part of a buffer: one range per dimension.
struct Region {
  Buffer buffer;
  std::vector<Range> ranges;

  // The whole buffer.
  static Region Full(const Buffer& buffer);
};

}  // namespace tile_ir

#endif  // TILE_IR_BUFFER_H_
