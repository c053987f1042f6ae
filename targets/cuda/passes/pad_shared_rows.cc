// Row padding of gemm operand tiles: collects the operands, rebuilds each with strides and
// swaps the new buffer in everywhere the old one is named.
#include "targets/cuda/passes/pad_shared_rows.h"

#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "tile_ir/mutator.h"
#include "tile_ir/visitor.h"

namespace tile_ir::passes {
namespace {

constexpr int64_t kChunkBytes = 16;

class GemmOperands : public IRVisitor {
 public:
  using IRVisitor::Visit;
  std::vector<Buffer> operands;

 protected:
  void VisitGemm(const Gemm& node) override {
    operands.push_back(node.a.buffer);
    operands.push_back(node.b.buffer);
    IRVisitor::VisitGemm(node);
  }
};

// `buffer` with padded rows, or nullptr when it is left alone.
Buffer Padded(const Buffer& buffer) {
  if (buffer->scope != MemoryScope::kShared || !buffer->strides.empty() || buffer->layout ||
      buffer->rank() < 2 || buffer->dtype.bits() < 8 || buffer->dtype.lanes() != 1) {
    return nullptr;
  }
  std::vector<int64_t> shape;
  for (const Expr& extent : buffer->shape) {
    std::optional<int64_t> value = AsConstInt(extent);
    if (!value || *value <= 0) return nullptr;
    shape.push_back(*value);
  }
  int64_t element_bytes = buffer->dtype.bits() / 8;
  int64_t row_bytes = shape.back() * element_bytes;
  if (row_bytes % kChunkBytes != 0 || (row_bytes / kChunkBytes) % 2 == 1) return nullptr;
  int64_t row_stride = (row_bytes + kChunkBytes) / element_bytes;
  std::vector<Expr> strides(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = Int(stride);
    stride = d + 1 == shape.size() ? row_stride : stride * shape[d];
  }
  return BufferNode::Make(buffer->name, buffer->dtype, buffer->shape, MemoryScope::kShared,
                          std::move(strides));
}

class BufferSwapper : public IRMutator {
 public:
  explicit BufferSwapper(absl::flat_hash_map<const BufferNode*, Buffer> swaps)
      : swaps_(std::move(swaps)) {}

 protected:
  Buffer MutateBuffer(const Buffer& buffer) override {
    auto it = swaps_.find(buffer.get());
    return it == swaps_.end() ? buffer : it->second;
  }

 private:
  absl::flat_hash_map<const BufferNode*, Buffer> swaps_;
};

}  // namespace

Kernel PadSharedRows(const Kernel& kernel) {
  GemmOperands operands;
  operands.Visit(kernel->body);
  absl::flat_hash_map<const BufferNode*, Buffer> swaps;
  for (const Buffer& operand : operands.operands) {
    if (swaps.contains(operand.get())) continue;
    if (Buffer padded = Padded(operand)) swaps[operand.get()] = std::move(padded);
  }
  if (swaps.empty()) return kernel;
  return BufferSwapper(std::move(swaps)).MutateKernel(kernel);
}

bool PadSharedRows(Module& module) {
  return *MapKernels(module, [](const Kernel& kernel) { return PadSharedRows(kernel); });
}

PassInfo PadSharedRowsPass() {
  PassInfo info;
  info.name = "pad-shared-rows";
  info.description =
      "pads the rows of shared gemm operand tiles to an odd number of 16-byte chunks, so that "
      "matrix loads of 8 rows hit 8 different bank groups";
  info.run_kernel =
      EachKernel([](const Kernel& kernel, const PassOptions&) { return PadSharedRows(kernel); });
  return info;
}

}  // namespace tile_ir::passes
