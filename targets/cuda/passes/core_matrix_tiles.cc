// Core-matrix order for the shared operand tiles of matrix instructions: finds the buffers the
// intrinsics' CoreMatrixReads name (targets/cuda/intrinsics.h), checks how else they are used,
// and rewrites them.
#include "targets/cuda/passes/core_matrix_tiles.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "passes/analysis/divisibility.h"
#include "targets/cuda/intrinsics.h"
#include "targets/cuda/tensor_maps.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/mutator.h"
#include "tile_ir/visitor.h"

namespace tile_ir::passes {
namespace {

constexpr int64_t kChunkBytes = 16;
constexpr int64_t kCoreMatrixRows = 8;

bool IsOperandPosition(const tile_ir::cuda::CoreMatrixReads& reads, size_t arg) {
  return std::find(reads.operands.begin(), reads.operands.end(), static_cast<int>(arg)) !=
         reads.operands.end();
}

// The buffers named at core-matrix operand positions.
class OperandFinder : public IRVisitor {
 public:
  using IRVisitor::Visit;
  absl::flat_hash_map<const BufferNode*, Buffer> operands;
  // The CoreMatrixReads::fence of the calls found, each once.
  std::vector<std::string> fences;

 protected:
  void VisitCall(const Call& node) override {
    IRVisitor::VisitCall(node);
    const tile_ir::cuda::CoreMatrixReads* info = tile_ir::cuda::FindCoreMatrixReads(node.name);
    if (info == nullptr) return;
    if (!info->fence.empty() &&
        std::find(fences.begin(), fences.end(), info->fence) == fences.end()) {
      fences.push_back(info->fence);
    }
    for (int arg : info->operands) {
      if (arg < 0 || static_cast<size_t>(arg) >= node.args.size()) continue;
      if (const BufferLoad* load = As<BufferLoad>(node.args[arg])) {
        operands.emplace(load->buffer.get(), load->buffer);
      }
    }
  }
};

// Whether a statement calls an intrinsic with core-matrix operands, or stores (ordinarily, not
// by an asynchronous copy) to one of the operand buffers.
class Contents : public IRVisitor {
 public:
  using IRVisitor::Visit;
  explicit Contents(const absl::flat_hash_map<const BufferNode*, Buffer>& operands)
      : operands_(operands) {}
  bool calls_operands = false;
  bool stores_operands = false;

 protected:
  void VisitCall(const Call& node) override {
    IRVisitor::VisitCall(node);
    if (tile_ir::cuda::FindCoreMatrixReads(node.name) != nullptr) calls_operands = true;
  }
  void VisitStore(const Store& node) override {
    IRVisitor::VisitStore(node);
    if (operands_.contains(node.buffer.get())) stores_operands = true;
  }

 private:
  const absl::flat_hash_map<const BufferNode*, Buffer>& operands_;
};

// Puts the fences after each statement that stores to an operand tile and calls no matrix
// instruction, in the innermost sequence that holds it (statements that do both are entered).
class FenceInserter : public IRMutator {
 public:
  FenceInserter(const absl::flat_hash_map<const BufferNode*, Buffer>& operands,
                std::vector<std::string> fences)
      : operands_(operands), fences_(std::move(fences)) {}

 protected:
  Stmt MutateSeq(const Seq& node, const Stmt& self) override {
    bool changed = false;
    std::vector<Stmt> stmts;
    for (const Stmt& stmt : node.stmts) {
      Contents contents(operands_);
      contents.Visit(stmt);
      if (contents.calls_operands) {
        Stmt result = Mutate(stmt);
        changed |= result != stmt;
        if (result) stmts.push_back(std::move(result));
        continue;
      }
      stmts.push_back(stmt);
      if (!contents.stores_operands) continue;
      for (const std::string& fence : fences_) {
        stmts.push_back(Evaluate::Make(Call::Make(kVoid, fence, {}), stmt->loc()));
      }
      changed = true;
    }
    return changed ? Seq::Make(std::move(stmts), node.loc()) : self;
  }

 private:
  const absl::flat_hash_map<const BufferNode*, Buffer>& operands_;
  std::vector<std::string> fences_;
};

// The first use of an operand buffer the rewrite cannot map: a load of it passed to a call
// that takes its address.
class UseChecker : public IRVisitor {
 public:
  using IRVisitor::Visit;
  explicit UseChecker(const absl::flat_hash_map<const BufferNode*, Buffer>& operands)
      : operands_(operands) {}
  std::optional<std::string> error;

 protected:
  void VisitCall(const Call& node) override {
    IRVisitor::VisitCall(node);
    if (error) return;
    const IntrinsicInfo* info = FindIntrinsic(node.name);
    const tile_ir::cuda::CoreMatrixReads* reads = tile_ir::cuda::FindCoreMatrixReads(node.name);
    for (size_t i = 0; i < node.args.size(); ++i) {
      const BufferLoad* load = As<BufferLoad>(node.args[i]);
      if (load == nullptr || !operands_.contains(load->buffer.get())) continue;
      bool ok = info != nullptr && (info->pure || (reads && IsOperandPosition(*reads, i)) ||
                                    (info->async_copy && i == 0));
      if (!ok) {
        error = absl::StrCat("shared buffer '", load->buffer->name,
                             "' is read in core-matrix order, but argument ", i, " of call '",
                             node.name, "' names one of its elements as an address");
        return;
      }
    }
  }

 private:
  const absl::flat_hash_map<const BufferNode*, Buffer>& operands_;
};

// The first TMA load whose destination (or store whose source) this pass does not lay out as
// the TMA writes (reads) it: 128-byte swizzle atoms of the box's shape (device/tma.cuh).
class TmaDestinationChecker : public IRVisitor {
 public:
  using IRVisitor::Visit;
  explicit TmaDestinationChecker(const absl::flat_hash_map<const BufferNode*, Buffer>& operands)
      : operands_(operands) {}
  std::optional<std::string> error;

 protected:
  void VisitCall(const Call& node) override {
    IRVisitor::VisitCall(node);
    const int tensor_rank = tile_ir::cuda::TmaTileRank(node);
    const int fixed = tile_ir::cuda::TmaLoadRank(node) != 0 ? tile_ir::cuda::kTmaLoadFixedArgs
                                                            : tile_ir::cuda::kTmaStoreFixedArgs;
    if (error || tensor_rank == 0 || node.args.size() != static_cast<size_t>(fixed + tensor_rank)) {
      return;
    }
    const BufferLoad* dst = As<BufferLoad>(node.args[0]);
    if (dst == nullptr) return;  // the emitter names it
    const BufferNode& buffer = *dst->buffer;
    const size_t rank = buffer.shape.size();
    std::optional<int64_t> rows = rank >= 2 ? AsConstInt(buffer.shape[rank - 2]) : std::nullopt;
    std::optional<int64_t> cols = rank >= 2 ? AsConstInt(buffer.shape[rank - 1]) : std::nullopt;
    const bool swizzled = cols && SwizzledCoreMatrixTile(*cols * buffer.dtype.bits() / 8);
    const size_t last = node.args.size() - 1;
    const std::string what = absl::StrCat(
        "core-matrix-tiles: ", node.name,
        fixed == tile_ir::cuda::kTmaLoadFixedArgs ? " writes" : " reads", " shared buffer '",
        buffer.name, "' in 128-byte swizzle atoms of its whole tile");
    if (!operands_.contains(&buffer) || !swizzled) {
      error =
          absl::StrCat(what, ", but the buffer is not a matrix-instruction operand laid out so");
    } else if (rows != AsConstInt(node.args[last - 1]) || cols != AsConstInt(node.args[last])) {
      auto extent = [](const Expr& e) {
        std::optional<int64_t> value = AsConstInt(e);
        return value ? absl::StrCat(*value) : std::string("?");
      };
      error = absl::StrCat(what, ", but its box (the last two arguments, ",
                           extent(node.args[last - 1]), " x ", extent(node.args[last]),
                           ") is not the buffer's ", *rows, " x ", *cols);
    }
  }

 private:
  const absl::flat_hash_map<const BufferNode*, Buffer>& operands_;
};

// Indices of accesses that run are never negative, so truncating division is floor division
// here, and it is what code generators emit plainly.
// An index narrower than i32 (an i4 or i8 that verifies as an index) widened to i32, so that
// the layout's constants (64, 128, ...) fit its type.
Expr Widened(const Expr& a) {
  const DataType type = a->dtype();
  if (!type.is_int() || type.bits() >= 32) return a;
  return Cast::Make(kI32.with_lanes(type.lanes()), a);
}
Expr Div(const Expr& a, int64_t b) {
  return Binary::Make(BinaryOp::kDiv, Widened(a), Int(b, Widened(a)->dtype()));
}
Expr Mod(const Expr& a, int64_t b) {
  return Binary::Make(BinaryOp::kMod, Widened(a), Int(b, Widened(a)->dtype()));
}
Expr Mul(const Expr& a, int64_t b) {
  return Binary::Make(BinaryOp::kMul, Widened(a), Int(b, Widened(a)->dtype()));
}
Expr Add(const Expr& a, const Expr& b) { return Binary::Make(BinaryOp::kAdd, a, b); }
Expr Xor(const Expr& a, const Expr& b) { return Binary::Make(BinaryOp::kXor, a, b); }

int64_t ElementBits(const BufferNode& buffer) { return buffer.dtype.bits() * buffer.dtype.lanes(); }

// The swizzled position in its 128-byte row of column `col` of row `row`, for an element of
// `elements` per chunk and `atom` per row: chunk c of the row goes to chunk c ^ (row % 8).
Expr SwizzledColumn(const Expr& row, const Expr& col, int64_t elements, int64_t atom) {
  Expr chunk = Div(Mod(col, atom), elements);
  Expr row_phase = Mod(row, kCoreMatrixRows);
  if (row_phase->dtype() != chunk->dtype()) row_phase = Cast::Make(chunk->dtype(), row_phase);
  return Add(Mul(Xor(chunk, row_phase), elements), Mod(col, elements));
}

// An operand tile's new layout: the re-laid buffer and how its last index splits. A column j
// goes to outer index j / `outer` and, inside it, to j % `chunk` within its 16-byte chunk,
// the chunk swizzled when `swizzled`.
struct TileLayout {
  Buffer blocked;
  int64_t chunk = 0;  // elements of one 16-byte chunk
  int64_t outer = 0;  // elements of one chunk column (interleaved) or 128-byte atom row
  bool swizzled = false;
};

// The layout of `buffer` as a core-matrix operand, or an error saying why it has none.
absl::StatusOr<TileLayout> LayOut(const Buffer& buffer) {
  auto refuse = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("core-matrix-tiles: shared buffer '", buffer->name, "' ", why));
  };
  if (buffer->scope != MemoryScope::kShared) return refuse("is not in shared memory");
  if (buffer->layout) return refuse("has a layout");
  if (buffer->rank() < 2) return refuse("is not a matrix");
  int64_t bits = ElementBits(*buffer);
  if (bits < 8 || (kChunkBytes * 8) % bits != 0)
    return refuse("has elements that do not tile 16 bytes");
  int64_t elements = kChunkBytes * 8 / bits;
  std::vector<int64_t> shape;
  for (const Expr& extent : buffer->shape) {
    std::optional<int64_t> value = AsConstInt(extent);
    if (!value || *value <= 0) return refuse("has a shape that is not constant");
    shape.push_back(*value);
  }
  size_t rank = shape.size();
  int64_t rows = shape[rank - 2];
  int64_t cols = shape[rank - 1];
  if (rows % kCoreMatrixRows != 0 || cols % elements != 0) {
    return refuse(absl::StrCat("is ", rows, " x ", cols, ": rows must be a multiple of ",
                               kCoreMatrixRows, " and columns of ", elements));
  }
  std::vector<Expr> blocked(buffer->shape.begin(), buffer->shape.end() - 2);
  if (SwizzledCoreMatrixTile(cols * bits / 8)) {
    // [..., C / W, R, W], dense.
    int64_t atom = kSwizzleRowBytes * 8 / bits;
    blocked.push_back(Int(cols / atom));
    blocked.push_back(Int(rows));
    blocked.push_back(Int(atom));
    return TileLayout{
        BufferNode::Make(buffer->name, buffer->dtype, std::move(blocked), MemoryScope::kShared),
        elements, atom, /*swizzled=*/true};
  }
  blocked.push_back(Int(cols / elements));
  blocked.push_back(Int(rows));
  blocked.push_back(Int(elements));
  int64_t column_stride = ChunkColumnStrideBytes(rows, cols * bits / 8) * 8 / bits;
  // [..., C / E, R, E]: the leading dimensions dense over the chunk columns.
  std::vector<Expr> strides(rank + 1);
  strides[rank] = Int(1);
  strides[rank - 1] = Int(elements);
  strides[rank - 2] = Int(column_stride);
  int64_t stride = column_stride * (cols / elements);
  for (size_t d = rank - 2; d-- > 0;) {
    strides[d] = Int(stride);
    stride *= shape[d];
  }
  return TileLayout{BufferNode::Make(buffer->name, buffer->dtype, std::move(blocked),
                                     MemoryScope::kShared, std::move(strides)),
                    elements, elements, /*swizzled=*/false};
}

class Rewriter : public IRMutator {
 public:
  Rewriter(absl::flat_hash_map<const BufferNode*, TileLayout> layouts, const Kernel& kernel)
      : layouts_(std::move(layouts)) {
    divisibility_.Visit(kernel->body);
  }
  std::optional<std::string> error;

 protected:
  Buffer MutateBuffer(const Buffer& buffer) override {
    auto it = layouts_.find(buffer.get());
    return it == layouts_.end() ? buffer : it->second.blocked;
  }

  Expr MutateBufferLoad(const BufferLoad& node, const Expr& self) override {
    Expr mutated = IRMutator::MutateBufferLoad(node, self);
    if (!layouts_.contains(node.buffer.get())) return mutated;
    const BufferLoad& load = *As<BufferLoad>(mutated);
    std::optional<std::vector<Expr>> indices = Indices(*node.buffer, load.indices);
    if (!indices) return mutated;
    return BufferLoad::Make(load.buffer, *std::move(indices));
  }

  Stmt MutateStore(const Store& node, const Stmt& self) override {
    Stmt mutated = IRMutator::MutateStore(node, self);
    if (!layouts_.contains(node.buffer.get())) return mutated;
    const Store& store = *As<Store>(mutated);
    std::optional<std::vector<Expr>> indices = Indices(*node.buffer, store.indices);
    if (!indices) return mutated;
    return Store::Make(store.buffer, *std::move(indices), store.value, node.loc());
  }

 private:
  // The blocked indices of an access of `original` at `indices`, or nullopt (with `error`
  // set) when no rule maps it.
  std::optional<std::vector<Expr>> Indices(const BufferNode& original,
                                           const std::vector<Expr>& indices) {
    const TileLayout& layout = layouts_.at(&original);
    const int64_t elements = layout.chunk;
    const int64_t outer = layout.outer;
    size_t rank = indices.size();
    auto fail = [&](absl::string_view why) -> std::optional<std::vector<Expr>> {
      if (!error) {
        error = absl::StrCat("core-matrix-tiles: an access of shared buffer '", original.name, "' ",
                             why);
      }
      return std::nullopt;
    };
    if (rank != original.shape.size() || rank < 2) return fail("has the wrong number of indices");
    Expr row = indices[rank - 2];
    const Expr& col = indices[rank - 1];
    if (const Broadcast* broadcast = As<Broadcast>(row)) row = broadcast->value;
    if (row->dtype().lanes() != 1) return fail("varies its row index across vector lanes");
    std::vector<Expr> result(indices.begin(), indices.end() - 2);
    for (const Expr& index : result) {
      if (index->dtype().lanes() != 1 && As<Broadcast>(index) == nullptr) {
        return fail("varies a leading index across vector lanes");
      }
    }
    auto inner = [&](const Expr& c) {
      return layout.swizzled ? SwizzledColumn(row, c, elements, outer) : Mod(c, elements);
    };
    if (col->dtype().lanes() == 1) {
      result.push_back(Div(col, outer));
      result.push_back(row);
      result.push_back(inner(col));
      return result;
    }
    if (const Broadcast* broadcast = As<Broadcast>(col)) {
      result.push_back(Broadcast::Make(Div(broadcast->value, outer), broadcast->lanes));
      result.push_back(row);
      result.push_back(Broadcast::Make(inner(broadcast->value), broadcast->lanes));
      return result;
    }
    const Ramp* ramp = As<Ramp>(col);
    if (ramp == nullptr || AsConstInt(ramp->stride) != 1) {
      return fail("is a vector access that is not contiguous along the row");
    }
    int64_t lanes = ramp->lanes;
    if (elements % lanes != 0 || divisibility_.Of(ramp->base) % lanes != 0) {
      return fail(absl::StrCat("of ", lanes,
                               " contiguous elements is not proved to stay inside one 16-byte "
                               "chunk"));
    }
    result.push_back(Div(ramp->base, outer));
    result.push_back(row);
    Expr base = inner(ramp->base);
    result.push_back(Ramp::Make(base, Int(1, base->dtype()), static_cast<int>(lanes)));
    return result;
  }

  absl::flat_hash_map<const BufferNode*, TileLayout> layouts_;
  Divisibility divisibility_;
};

}  // namespace

bool SwizzledCoreMatrixTile(int64_t row_bytes) {
  return row_bytes > 0 && row_bytes % kSwizzleRowBytes == 0;
}

std::vector<const BufferNode*> CoreMatrixOperandBuffers(const KernelNode& kernel) {
  OperandFinder finder;
  finder.Visit(kernel.body);
  std::vector<const BufferNode*> buffers;
  for (const auto& [node, buffer] : finder.operands) buffers.push_back(node);
  return buffers;
}

int64_t ChunkColumnStrideBytes(int64_t rows, int64_t row_bytes) {
  int64_t chunks = row_bytes / kChunkBytes;
  int64_t pad = chunks <= 1 ? 0 : 8 * kChunkBytes / std::min<int64_t>(chunks, 8);
  return rows * kChunkBytes + pad;
}

absl::StatusOr<Kernel> LayCoreMatrixTiles(const Kernel& kernel) {
  OperandFinder finder;
  finder.Visit(kernel->body);
  auto in_kernel = [&](absl::Status status) {
    return absl::Status(status.code(),
                        absl::StrCat("kernel '", kernel->name, "': ", status.message()));
  };
  TmaDestinationChecker tma(finder.operands);
  tma.Visit(kernel->body);
  if (tma.error) return in_kernel(absl::InvalidArgumentError(*tma.error));
  if (finder.operands.empty()) return kernel;
  UseChecker checker(finder.operands);
  checker.Visit(kernel->body);
  if (checker.error) return in_kernel(absl::InvalidArgumentError(*checker.error));
  absl::flat_hash_map<const BufferNode*, TileLayout> layouts;
  for (const auto& [node, buffer] : finder.operands) {
    absl::StatusOr<TileLayout> layout = LayOut(buffer);
    if (!layout.ok()) return in_kernel(layout.status());
    layouts.emplace(node, *std::move(layout));
  }
  Kernel fenced = kernel;
  if (!finder.fences.empty()) {
    fenced = FenceInserter(finder.operands, finder.fences).MutateKernel(kernel);
  }
  Rewriter rewriter(std::move(layouts), fenced);
  Kernel result = rewriter.MutateKernel(fenced);
  if (rewriter.error) return in_kernel(absl::InvalidArgumentError(*rewriter.error));
  return result;
}

absl::StatusOr<bool> LayCoreMatrixTiles(Module& module) {
  return MapKernels(module, [](const Kernel& kernel) { return LayCoreMatrixTiles(kernel); });
}

PassInfo CoreMatrixTilesPass() {
  PassInfo info;
  info.name = "core-matrix-tiles";
  info.description =
      "re-lays the shared tiles that matrix instructions read as 8-row x 16-byte core "
      "matrices (128-byte swizzle atoms for rows of whole 128 bytes, else chunk column after "
      "chunk column) and rewrites their accesses";
  info.run_kernel = EachKernel(
      [](const Kernel& kernel, const PassOptions&) { return LayCoreMatrixTiles(kernel); });
  return info;
}

}  // namespace tile_ir::passes
