// TMA stores for warp-specialize's consumers: which copies qualify, and their rewrite
// (tma_stores.h).
#include "targets/cuda/passes/tma_stores.h"

#include <algorithm>
#include <mutex>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "passes/analysis/divisibility.h"
#include "passes/transforms/plan_shared_memory.h"
#include "targets/cuda/intrinsics.h"
#include "targets/cuda/passes/core_matrix_tiles.h"
#include "targets/cuda/tensor_maps.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/visitor.h"

namespace tile_ir::cuda {
namespace {

// Bytes rounded up to the alignment of a core-matrix tile, as SharedFootprint counts them.
int64_t Aligned(int64_t bytes) {
  constexpr int64_t kAlign = passes::kCoreMatrixTileAlignment;
  return (bytes + kAlign - 1) / kAlign * kAlign;
}

Stmt ByLeader(Stmt body) {
  return If::Make(Call::Make(kBool, kConsumerLeaderMarker, {}), std::move(body));
}

bool IsFull(const Region& region) {
  const BufferNode& buffer = *region.buffer;
  if (region.ranges.size() != buffer.rank()) return false;
  for (size_t d = 0; d < region.ranges.size(); ++d) {
    if (AsConstInt(region.ranges[d].min) != 0 ||
        AsConstInt(region.ranges[d].extent) != AsConstInt(buffer.shape[d]) ||
        !AsConstInt(buffer.shape[d])) {
      return false;
    }
  }
  return true;
}

// Why `copy` cannot go through a staging tile and a TMA store, or empty.
std::string WhyNot(const Copy& copy, const KernelNode& kernel,
                   const passes::Divisibility& divisibility) {
  const BufferNode& src = *copy.src.buffer;
  const BufferNode& dst = *copy.dst.buffer;
  if (src.scope != MemoryScope::kFragment || src.rank() != 2 || !IsFull(copy.src)) {
    return "its source is not a whole 2-D fragment of constant shape";
  }
  const bool is_param = std::any_of(kernel.params.begin(), kernel.params.end(),
                                    [&](const Param& p) { return p.buffer.get() == &dst; });
  const int rank = static_cast<int>(dst.rank());
  if (!is_param || rank < kTmaMinRank || rank > kTmaMaxRank || dst.layout ||
      !dst.strides.empty()) {
    return absl::StrCat("it does not write a dense tensor parameter of rank ", kTmaMinRank, " to ",
                        kTmaMaxRank);
  }
  const int64_t element = dst.dtype.bits() / 8;
  if (element == 0 || dst.dtype.lanes() != 1) return "it writes sub-byte elements";
  const int64_t rows = *AsConstInt(src.shape[0]);
  const int64_t cols = *AsConstInt(src.shape[1]);
  bool one_matrix = true;
  for (int d = 0; d + 2 < rank; ++d) one_matrix &= AsConstInt(copy.dst.ranges[d].extent) == 1;
  if (!one_matrix || AsConstInt(copy.dst.ranges[rank - 2].extent) != rows ||
      AsConstInt(copy.dst.ranges[rank - 1].extent) != cols) {
    return "its destination is not a tile of the fragment's shape in the last two dimensions";
  }
  if (rows % 8 != 0 || rows > kTmaMaxBoxRows || !passes::SwizzledCoreMatrixTile(cols * element)) {
    return absl::StrCat("its ", rows, " x ", cols, " tile is not at most ", kTmaMaxBoxRows,
                        " rows (a multiple of 8) of whole ", kTmaSwizzleBytes, "-byte rows");
  }
  if (divisibility.Of(dst.shape[rank - 1]) * element % 16 != 0) {
    return absl::StrCat("the pitch of the rows of '", dst.name,
                        "' is not proved a multiple of 16 bytes (constant shapes or a `require` "
                        "line prove it)");
  }
  return "";
}

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
        const BufferNode& buffer =
            restaged != staged_.end() ? *restaged->second : *node.buffer;
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
  RegisterTmaStoreIntrinsics();
  passes::Divisibility divisibility;
  divisibility.AddRequirements(kernel);
  divisibility.Visit(kernel.body);
  TmaStoreEpilogue out;
  for (const Stmt& s : epilogue) {
    const Copy* copy = As<Copy>(s);
    if (copy == nullptr || copy->dst.buffer->scope != MemoryScope::kGlobal) {
      out.epilogue.push_back(s);
      continue;
    }
    const Buffer& dst = copy->dst.buffer;
    auto keep = [&](const std::string& why) {
      out.remarks.push_back(absl::StrCat("keeps the consumers' stores to '", dst->name, "': ", why));
      out.epilogue.push_back(s);
    };
    if (std::string why = WhyNot(*copy, kernel, divisibility); !why.empty()) {
      keep(why);
      continue;
    }
    const Buffer& src = copy->src.buffer;
    Buffer stage = BufferNode::Make(names.Fresh(dst->name + "_stage"), dst->dtype, src->shape,
                                    MemoryScope::kShared);
    const int64_t bytes = *passes::SharedBufferBytes(*stage);
    const int64_t needed = shared_bytes + Aligned(bytes);
    if (needed > shared_limit) {
      keep(absl::StrCat("its ", bytes, "-byte staging tile beside the kernel's ", shared_bytes,
                        " bytes of shared memory would exceed the target's ", shared_limit,
                        " (fewer stages or a smaller tile leave room)"));
      continue;
    }
    shared_bytes = needed;
    const DataType index = copy->dst.ranges[0].min->dtype();
    Expr origin = BufferLoad::Make(stage, {Int(0, index), Int(0, index)});
    std::vector<Expr> tensor_origin(dst->rank(), Int(0, index));
    std::vector<Expr> args = {origin, BufferLoad::Make(dst, std::move(tensor_origin))};
    for (const Range& range : copy->dst.ranges) args.push_back(range.min);
    args.push_back(src->shape[0]);
    args.push_back(src->shape[1]);
    Stmt wait = ByLeader(Evaluate::MakeVoidCall(kTmaStoreWaitReadIntrinsic, {origin}));
    out.allocations.push_back(Allocate::Make(stage));
    if (persistent) out.epilogue.push_back(wait);
    out.epilogue.push_back(Copy::Make(copy->src, Region::Full(stage), s->loc()));
    out.epilogue.push_back(ByLeader(Evaluate::MakeVoidCall(
        TmaStoreIntrinsic(static_cast<int>(dst->rank())), std::move(args))));
    out.drain.push_back(wait);
    out.remarks.push_back(absl::StrCat("stores '", dst->name, "' through a ", bytes,
                                       "-byte shared tile with the TMA"));
  }
  return out;
}

}  // namespace tile_ir::cuda
