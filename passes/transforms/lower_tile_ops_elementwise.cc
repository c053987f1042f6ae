// Lowering of the element-wise tile operations: copy, fill and atomic_add.
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "passes/transforms/lower_tile_ops_internal.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/printer.h"

namespace tile_ir::passes::lowering {
namespace {

// Loops over the paired non-unit dimensions of two regions of equal extents,
// and the indices of both regions inside them.
struct PairedNest {
  std::vector<Loop> loops;
  std::vector<Expr> src_indices;
  std::vector<Expr> dst_indices;
};

std::string ExtentsText(const Region& region) {
  return absl::StrCat("[",
                      absl::StrJoin(region.ranges, ", ",
                                    [](std::string* out, const Range& r) {
                                      absl::StrAppend(out, Print(r.extent));
                                    }),
                      "]");
}

absl::StatusOr<PairedNest> PairRegions(const StmtNode& op, const Region& src, const Region& dst,
                                       OpContext& ctx) {
  std::vector<int> src_dims = NonUnitDims(src);
  std::vector<int> dst_dims = NonUnitDims(dst);
  if (src_dims.size() != dst_dims.size()) {
    return OpError(
        ctx, op, absl::StatusCode::kUnimplemented,
        absl::StrCat("cannot pair the dimensions of '", src.buffer->name, "' ", ExtentsText(src),
                     " with those of '", dst.buffer->name, "' ", ExtentsText(dst),
                     ": write unit dimensions with the literal extent 1"));
  }
  PairedNest nest;
  std::vector<Expr> positions;
  ForKind kind = ElementLoopKind(dst.buffer);
  for (size_t p = 0; p < dst_dims.size(); ++p) {
    Expr extent = PreferConstant(dst.ranges[dst_dims[p]].extent, src.ranges[src_dims[p]].extent);
    nest.loops.push_back(MakeLoop(ctx, DimName(p), extent, kind));
    positions.push_back(nest.loops.back().var);
  }
  nest.src_indices = RegionIndices(src, src_dims, positions);
  nest.dst_indices = RegionIndices(dst, dst_dims, positions);
  return nest;
}

}  // namespace

absl::StatusOr<Stmt> LowerCopy(const Copy& op, OpContext& ctx) {
  absl::StatusOr<PairedNest> nest = PairRegions(op, op.src, op.dst, ctx);
  if (!nest.ok()) return nest.status();
  absl::Status same_thread = CheckSameThread(ctx, op, op.src, nest->src_indices, op.dst,
                                             nest->dst_indices, /*along=*/nullptr);
  if (!same_thread.ok()) return same_thread;
  Expr value = CastTo(op.dst.buffer->dtype, BufferLoad::Make(op.src.buffer, nest->src_indices));
  Stmt store = Store::Make(op.dst.buffer, nest->dst_indices, std::move(value), op.loc());
  return Nest(nest->loops, std::move(store), op.loc());
}

absl::StatusOr<Stmt> LowerFill(const Fill& op, OpContext& ctx) {
  std::vector<int> dims = NonUnitDims(op.dst);
  std::vector<Loop> loops;
  std::vector<Expr> positions;
  for (size_t p = 0; p < dims.size(); ++p) {
    loops.push_back(
        MakeLoop(ctx, DimName(p), op.dst.ranges[dims[p]].extent, ElementLoopKind(op.dst.buffer)));
    positions.push_back(loops.back().var);
  }
  Stmt store =
      Store::Make(op.dst.buffer, RegionIndices(op.dst, dims, positions), op.value, op.loc());
  return Nest(loops, std::move(store), op.loc());
}

absl::StatusOr<Stmt> LowerAtomicAdd(const AtomicAdd& op, OpContext& ctx) {
  absl::StatusOr<PairedNest> nest = PairRegions(op, op.src, op.dst, ctx);
  if (!nest.ok()) return nest.status();
  Expr address = BufferLoad::Make(op.dst.buffer, nest->dst_indices);
  Expr value = CastTo(op.dst.buffer->dtype, BufferLoad::Make(op.src.buffer, nest->src_indices));
  Expr call = Call::Make(kVoid, kAtomicAddAt, {std::move(address), std::move(value)});
  return Nest(nest->loops, Evaluate::Make(std::move(call), op.loc()), op.loc());
}

}  // namespace tile_ir::passes::lowering
