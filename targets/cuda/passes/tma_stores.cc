// TMA stores for warp-specialize's consumers: which copies qualify, and their rewrite
// (tma_stores.h).
#include "targets/cuda/passes/tma_stores.h"

#include <mutex>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "passes/analysis/arith/expr_simplifier.h"
#include "passes/analysis/divisibility.h"
#include "passes/analysis/shared_buffer_bytes.h"
#include "passes/analysis/software_pipeline_stages.h"
#include "targets/cuda/intrinsics.h"
#include "targets/cuda/passes/core_matrix_tiles.h"
#include "targets/cuda/tensor_maps.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/visitor.h"

namespace tile_ir::cuda {
namespace {

// A chunk of the accumulator holds whole row blocks of a wgmma's (m64), so that each thread's
// share of it is a static run of its registers. A chunk of 32 rows took the fragment copy's
// per-element path, whose loop indexes the registers at run time and so moved the accumulator
// to the stack: gemm_f16 (f32 output) at 128x256x64_s4 ran 65 TFLOP/s, 10x slower than with
// direct stores (H100, run 20).
constexpr int64_t kChunkRowBlock = 64;

// Bytes rounded up to the alignment of a core-matrix tile, as SharedFootprint counts them.
int64_t Aligned(int64_t bytes) {
  constexpr int64_t kAlign = passes::kCoreMatrixTileAlignment;
  return (bytes + kAlign - 1) / kAlign * kAlign;
}

// Rows [first, first + rows) of a 2-D tile `region` (of its last two dimensions).
Region ChunkRegion(const Region& region, int64_t first, int64_t rows) {
  Region chunk = region;
  Range& range = chunk.ranges[chunk.ranges.size() - 2];
  const DataType index = range.min->dtype();
  if (first != 0)
    range.min = arith::SimplifyExpr(Binary::Make(BinaryOp::kAdd, range.min, Int(first, index)));
  range.extent = Int(rows, range.extent->dtype());
  return chunk;
}

Stmt ByLeader(Stmt body) {
  return If::Make(Call::Make(kBool, kConsumerLeaderMarker, {}), std::move(body));
}

// Why `copy` cannot go through a staging tile and a TMA store, or empty.
std::string WhyNot(const Copy& copy, const KernelNode& kernel,
                   const passes::Divisibility& divisibility) {
  const BufferNode& src = *copy.src.buffer;
  if (src.scope != MemoryScope::kFragment || src.rank() != 2 || !AsConstInt(src.shape[0]) ||
      !AsConstInt(src.shape[1]) || copy.src.ranges.size() != 2 || !passes::IsFullRegion(copy.src)) {
    return "its source is not a whole 2-D fragment of constant shape";
  }
  return TmaTileWhyNot(kernel, copy.dst, src.shape, divisibility);
}

// The statements naming each buffer, and the buffers written by copies to global memory that
// sit inside other statements (loops, branches).
class EpilogueUses : public IRVisitor {
 public:
  using IRVisitor::Visit;
  absl::flat_hash_map<const BufferNode*, int> statements;  // naming the buffer
  std::vector<const BufferNode*> nested_outputs;

  void VisitStatement(const Stmt& s) {
    named_.clear();
    top_ = s.get();
    Visit(s);
    for (const BufferNode* buffer : named_) ++statements[buffer];
  }

 protected:
  void VisitBufferUse(const Buffer& buffer) override { named_.insert(buffer.get()); }
  void VisitCopy(const Copy& node) override {
    if (&node != top_ && node.dst.buffer->scope == MemoryScope::kGlobal) {
      nested_outputs.push_back(node.dst.buffer.get());
    }
    IRVisitor::VisitCopy(node);
  }

 private:
  absl::flat_hash_set<const BufferNode*> named_;
  const StmtNode* top_ = nullptr;
};

}  // namespace

void RegisterTmaStoreIntrinsics() {
  static std::once_flag once;
  std::call_once(once, [] {
    RegisterRoleMarker(kConsumerLeaderMarker,
                       "true in one consumer thread of a warp-specialized kernel, the one that "
                       "issues its TMA stores (a marker that warp-roles replaces with a "
                       "thread-index test)",
                       /*partitions_threads=*/false);
    RegisterTmaIntrinsics();
  });
}

int64_t SharedFootprint(const Stmt& body, const passes::BufferMap& staged) {
  class Allocations : public IRVisitor {
   public:
    explicit Allocations(const passes::BufferMap& staged) : staged_(staged) {}
    using IRVisitor::Visit;
    int64_t bytes = 0;

   protected:
    void VisitAllocate(const Allocate& node) override {
      if (node.buffer->scope == MemoryScope::kShared) {
        auto restaged = staged_.find(node.buffer.get());
        const BufferNode& buffer = restaged != staged_.end() ? *restaged->second : *node.buffer;
        bytes += Aligned(passes::SharedBufferBytes(buffer).value_or(0));
      }
      IRVisitor::VisitAllocate(node);
    }

   private:
    const passes::BufferMap& staged_;
  } allocations(staged);
  allocations.Visit(body);
  return allocations.bytes;
}

TmaStoreEpilogue StoreTilesWithTma(const KernelNode& kernel, const std::vector<Stmt>& epilogue,
                                   int64_t shared_bytes, int64_t shared_limit, bool persistent,
                                   passes::FreshNames& names) {
  const passes::Divisibility divisibility = TmaDivisibility(kernel);
  EpilogueUses uses;
  for (const Stmt& s : epilogue) uses.VisitStatement(s);
  TmaStoreEpilogue out;
  for (const BufferNode* nested : uses.nested_outputs) {
    out.remarks.push_back(absl::StrCat("keeps the consumers' stores to '", nested->name,
                                       "' inside a loop or branch: only the epilogue's top-level "
                                       "copies go through the TMA"));
  }
  std::optional<size_t> first_store;  // where the first staging copy is in out.epilogue
  Expr first_stage;                   // its tile
  for (const Stmt& s : epilogue) {
    const Copy* copy = As<Copy>(s);
    if (copy == nullptr || copy->dst.buffer->scope != MemoryScope::kGlobal) {
      out.epilogue.push_back(s);
      continue;
    }
    const Buffer& dst = copy->dst.buffer;
    auto keep = [&](const std::string& why) {
      out.remarks.push_back(
          absl::StrCat("keeps the consumers' stores to '", dst->name, "': ", why));
      out.epilogue.push_back(s);
    };
    if (std::string why = WhyNot(*copy, kernel, divisibility); !why.empty()) {
      keep(why);
      continue;
    }
    if (uses.statements[dst.get()] > 1) {
      // The store's global writes complete asynchronously, unordered with other accesses.
      keep(absl::StrCat("another statement of the epilogue reads or writes '", dst->name,
                        "', which the asynchronous store would not be ordered with"));
      continue;
    }
    const Buffer& src = copy->src.buffer;
    const int64_t rows = *AsConstInt(src->shape[0]);
    // The whole tile, else row chunks of it (halving), one staging tile reused for each.
    std::optional<int64_t> chunk_rows;
    int64_t bytes = 0;
    std::string why_not_chunk;
    // The whole tile (rows of 8 or more), then chunks of whole kChunkRowBlock-row blocks.
    for (int64_t r = rows;
         r >= 8 && rows % r == 0 && r % 8 == 0 && (r == rows || r % kChunkRowBlock == 0); r /= 2) {
      const int64_t tile_bytes = *passes::SharedBufferBytes(
          *BufferNode::Make(dst->name, dst->dtype, {Int(r), src->shape[1]}, MemoryScope::kShared));
      if (shared_bytes + Aligned(tile_bytes) > shared_limit) continue;
      if (r != rows) {
        std::vector<Expr> chunk_shape = {Int(r, src->shape[0]->dtype()), src->shape[1]};
        if (std::string why =
                TmaTileWhyNot(kernel, ChunkRegion(copy->dst, 0, r), chunk_shape, divisibility);
            !why.empty()) {
          why_not_chunk = why;
          continue;
        }
      }
      chunk_rows = r;
      bytes = tile_bytes;
      break;
    }
    if (!chunk_rows) {
      const int64_t whole = *passes::SharedBufferBytes(
          *BufferNode::Make(dst->name, dst->dtype, src->shape, MemoryScope::kShared));
      keep(absl::StrCat("its ", whole, "-byte staging tile beside the kernel's ", shared_bytes,
                        " bytes of shared memory would exceed the target's ", shared_limit,
                        ", and so would a chunk of it in blocks of ", kChunkRowBlock, " rows",
                        why_not_chunk.empty()
                            ? ""
                            : absl::StrCat(" that the TMA can store (", why_not_chunk, ")"),
                        " (fewer stages or a smaller tile leave room)"));
      continue;
    }
    shared_bytes += Aligned(bytes);
    const int64_t chunks = rows / *chunk_rows;
    Buffer stage = BufferNode::Make(names.Fresh(dst->name + "_stage"), dst->dtype,
                                    {Int(*chunk_rows, src->shape[0]->dtype()), src->shape[1]},
                                    MemoryScope::kShared);
    const DataType index = copy->dst.ranges[0].min->dtype();
    auto origin = [&] { return BufferLoad::Make(stage, {Int(0, index), Int(0, index)}); };
    out.allocations.push_back(Allocate::Make(stage));
    for (int64_t c = 0; c < chunks; ++c) {
      if (c > 0) {
        // The previous chunk's store has read the staging tile before the threads overwrite it.
        out.epilogue.push_back(
            ByLeader(Evaluate::MakeVoidCall(kTmaStoreWaitReadIntrinsic, {origin()})));
      } else if (!first_store) {
        first_store = out.epilogue.size();
        first_stage = origin();
      }
      const Region dst_chunk = ChunkRegion(copy->dst, c * *chunk_rows, *chunk_rows);
      Region src_chunk = copy->src;
      if (chunks > 1) src_chunk = ChunkRegion(copy->src, c * *chunk_rows, *chunk_rows);
      std::vector<Expr> tensor_origin(dst->rank(), Int(0, index));
      std::vector<Expr> args = {origin(), BufferLoad::Make(dst, std::move(tensor_origin))};
      for (const Range& range : dst_chunk.ranges) args.push_back(range.min);
      args.push_back(stage->shape[0]);
      args.push_back(stage->shape[1]);
      out.epilogue.push_back(Copy::Make(src_chunk, Region::Full(stage), s->loc()));
      out.epilogue.push_back(ByLeader(Evaluate::MakeVoidCall(
          TmaStoreIntrinsic(static_cast<int>(dst->rank())), std::move(args))));
    }
    // Each staging tile is named by a wait of the drain, so that it stays allocated (and its
    // bytes unshared) until the stores have read it.
    out.drain.push_back(ByLeader(Evaluate::MakeVoidCall(kTmaStoreWaitReadIntrinsic, {origin()})));
    out.remarks.push_back(
        chunks == 1 ? absl::StrCat("stores '", dst->name, "' through a ", bytes,
                                   "-byte shared tile with the TMA")
                    : absl::StrCat("stores '", dst->name, "' with the TMA in ", chunks,
                                   " chunks of ", *chunk_rows, " rows through one ", bytes,
                                   "-byte shared tile (the whole tile would not fit beside the "
                                   "kernel's other shared memory)"));
  }
  if (persistent && first_store) {
    // One wait before the tile's first staging copy: the last tile's stores (every bulk group
    // of this thread) have read their tiles, and the barrier insert-barriers puts after it
    // (the wait names a staging tile) holds the other threads until then.
    out.epilogue.insert(
        out.epilogue.begin() + static_cast<std::ptrdiff_t>(*first_store),
        ByLeader(Evaluate::MakeVoidCall(kTmaStoreWaitReadIntrinsic, {first_stage})));
  }
  return out;
}

}  // namespace tile_ir::cuda
