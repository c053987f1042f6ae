// Lowering of reduce and cumsum: one serial pass along the reduced or scanned
// dimension per row, rows spread over loops of the other dimensions; rows that lie
// across threads go through shared memory.
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "passes/analysis/arith/expr_simplifier.h"
#include "passes/analysis/lane_reduction.h"
#include "passes/transforms/lower_tile_ops_internal.h"

namespace tile_ir::passes::lowering {
namespace {

Expr Combine(ReduceKind kind, const Expr& acc, const Expr& x) {
  return CombineReduced(kind, acc, MagnitudeIfAbs(kind, x));
}

Expr Identity(ReduceKind kind, DataType dtype) {
  switch (kind) {
    case ReduceKind::kSum:
    case ReduceKind::kAbsMax:
    case ReduceKind::kAbsSum:
    case ReduceKind::kBitOr:
    case ReduceKind::kBitXor: return Zero(dtype);
    case ReduceKind::kMax: return Lowest(dtype);
    case ReduceKind::kMin: return Highest(dtype);
    case ReduceKind::kProd: return dtype.is_float() ? Float(1.0, dtype) : Int(1, dtype);
    // Every bit set: -1, or the unsigned type's maximum.
    case ReduceKind::kBitAnd: return dtype.is_unsigned() ? Highest(dtype) : Int(-1, dtype);
  }
  return nullptr;
}

// Loops over the non-unit dimensions of `region` other than `skipped`.
struct RowLoops {
  std::vector<Loop> loops;
  std::vector<int> dims;  // the region dimension of each loop
};

RowLoops LoopsExcept(const Region& region, int skipped, ForKind kind, OpContext& ctx) {
  RowLoops rows;
  for (int d : NonUnitDims(region)) {
    if (d == skipped) continue;
    rows.loops.push_back(MakeLoop(ctx, DimName(rows.loops.size()), region.ranges[d].extent, kind));
    rows.dims.push_back(d);
  }
  return rows;
}

// Whether `region` is its whole buffer of constant shape.
bool IsWholeRegion(const Region& region) {
  const BufferNode& buffer = *region.buffer;
  if (region.ranges.size() != buffer.shape.size()) return false;
  for (size_t d = 0; d < region.ranges.size(); ++d) {
    std::optional<int64_t> extent = AsConstInt(region.ranges[d].extent);
    if (AsConstInt(region.ranges[d].min) != 0 || !extent || extent != AsConstInt(buffer.shape[d])) {
      return false;
    }
  }
  return true;
}

std::vector<Expr> Vars(const std::vector<Loop>& loops) {
  std::vector<Expr> vars;
  for (const Loop& loop : loops) vars.push_back(loop.var);
  return vars;
}

}  // namespace

// When a fragment's layout spreads the elements of one reduced row over
// several threads (a gemm accumulator's, say), no thread can combine its row
// alone: the source is copied into a shared tile first, from which the
// destination's owners reduce whole rows (insert-barriers orders the two).
// Correct on any target; a target with warp shuffles can do better.
absl::StatusOr<Stmt> StageSourceInShared(const Reduce& op, OpContext& ctx) {
  std::vector<Expr> shape;
  for (const Range& range : op.src.ranges) shape.push_back(range.extent);
  Buffer staged = BufferNode::Make(ctx.names.Fresh(op.src.buffer->name + "_staged"),
                                   op.src.buffer->dtype, std::move(shape), MemoryScope::kShared);
  OpRemark(
      ctx, op,
      absl::StrCat("the rows that reduce '", op.src.buffer->name, "' to '", op.dst.buffer->name,
                   "' lie across threads in a way no lane butterfly joins: the source goes "
                   "through shared memory ('",
                   staged->name, "') and the destination's owners reduce whole rows"));
  Stmt copy_op = Copy::Make(op.src, Region::Full(staged), op.loc());
  absl::StatusOr<Stmt> copy = LowerCopy(*As<Copy>(copy_op), ctx);
  if (!copy.ok()) return copy.status();
  Stmt reduce_op =
      Reduce::Make(op.reduce_kind, Region::Full(staged), op.dst, op.dim, op.clear, op.loc());
  absl::StatusOr<Stmt> reduce = LowerReduce(*As<Reduce>(reduce_op), ctx);
  if (!reduce.ok()) return reduce.status();
  return Seq::Make({Allocate::Make(staged, op.loc()), *std::move(copy), *std::move(reduce)},
                   op.loc());
}

absl::StatusOr<Stmt> LowerReduce(const Reduce& op, OpContext& ctx) {
  const Buffer& dst = op.dst.buffer;
  if (dst->dtype.is_bool() || op.src.buffer->dtype.is_bool()) {
    return OpError(ctx, op, absl::StatusCode::kInvalidArgument,
                   "reduce needs numeric operands, not bool");
  }
  // Rows across lanes with the destination replicated over them (layout-inference's
  // LaneReplicatedReducedLayout): only thread-binding sees registers and lanes, so the
  // reduction stays whole for it (thread_binding_lane_reduce.cc).
  if (ctx.threads > 1 && IsWholeRegion(op.src) && IsWholeRegion(op.dst) &&
      PlanLaneReduction(*op.src.buffer, *dst, op.dim, ctx.threads, ctx.target.warp_size())) {
    return Reduce::Make(op.reduce_kind, op.src, op.dst, op.dim, op.clear, op.loc());
  }
  ForKind row_kind = ctx.threads > 1 ? ElementLoopKind(dst) : ForKind::kSerial;
  RowLoops rows = LoopsExcept(op.src, op.dim, row_kind, ctx);
  Loop r = MakeLoop(ctx, "r", op.src.ranges[op.dim].extent, ForKind::kSerial);

  std::vector<int> src_dims = rows.dims;
  src_dims.push_back(op.dim);
  std::vector<Expr> src_positions = Vars(rows.loops);
  src_positions.push_back(r.var);
  std::vector<Expr> src_index = RegionIndices(op.src, src_dims, src_positions);
  // The destination drops the reduced dimension, or keeps it with extent 1.
  bool keeps_dim = op.dst.ranges.size() == op.src.ranges.size();
  std::vector<int> dst_dims;
  for (int d : rows.dims) dst_dims.push_back(keeps_dim || d < op.dim ? d : d - 1);
  std::vector<Expr> dst_index = RegionIndices(op.dst, dst_dims, Vars(rows.loops));

  absl::Status same_thread =
      CheckSameThread(ctx, op, op.src, src_index, op.dst, dst_index, r.var.get());
  if (!same_thread.ok()) {
    if (op.src.buffer->scope != MemoryScope::kFragment) return same_thread;
    return StageSourceInShared(op, ctx);
  }

  Expr acc = BufferLoad::Make(dst, dst_index);
  std::vector<Stmt> row;
  if (op.clear) {
    row.push_back(Store::Make(dst, dst_index, Identity(op.reduce_kind, dst->dtype), op.loc()));
  } else if (op.reduce_kind == ReduceKind::kAbsMax || op.reduce_kind == ReduceKind::kAbsSum) {
    // The old value joins the reduction, so it counts by its magnitude too.
    row.push_back(Store::Make(dst, dst_index, MagnitudeIfAbs(op.reduce_kind, acc), op.loc()));
  }
  Expr x = CastTo(dst->dtype, BufferLoad::Make(op.src.buffer, src_index));
  Stmt update = Store::Make(dst, dst_index, Combine(op.reduce_kind, acc, x), op.loc());
  row.push_back(Nest({r}, std::move(update), op.loc()));
  Stmt body = row.size() == 1 ? row[0] : Seq::Make(std::move(row), op.loc());
  return Nest(rows.loops, std::move(body), op.loc());
}

// A scan whose fragment rows lie across threads goes through shared memory as a reduction
// does: the source is copied into a shared tile and scanned from there by whole rows, in
// place and then copied into a fragment destination, each copy by the elements' owners.
absl::StatusOr<Stmt> StageScanInShared(const Cumsum& op, OpContext& ctx) {
  std::vector<Expr> shape;
  for (const Range& range : op.src.ranges) shape.push_back(range.extent);
  Buffer staged = BufferNode::Make(ctx.names.Fresh(op.src.buffer->name + "_staged"),
                                   op.dst.buffer->dtype, std::move(shape), MemoryScope::kShared);
  OpRemark(ctx, op,
           absl::StrCat("the rows that '", op.src.buffer->name, "' is scanned along into '",
                        op.dst.buffer->name,
                        "' lie across threads: the scan goes through shared memory ('",
                        staged->name, "'), one thread a row"));
  // A destination in shared memory takes the scan directly.
  bool into_dst = op.dst.buffer->scope == MemoryScope::kShared;
  std::vector<Stmt> ops = {
      Copy::Make(op.src, Region::Full(staged), op.loc()),
      Cumsum::Make(Region::Full(staged), into_dst ? op.dst : Region::Full(staged), op.dim,
                   op.reverse, op.loc())};
  if (!into_dst) ops.push_back(Copy::Make(Region::Full(staged), op.dst, op.loc()));
  std::vector<Stmt> steps = {Allocate::Make(staged, op.loc())};
  for (const Stmt& step : ops) {
    absl::StatusOr<Stmt> lowered = As<Copy>(step) != nullptr ? LowerCopy(*As<Copy>(step), ctx)
                                                             : LowerCumsum(*As<Cumsum>(step), ctx);
    if (!lowered.ok()) return lowered.status();
    steps.push_back(*std::move(lowered));
  }
  return Seq::Make(std::move(steps), op.loc());
}

absl::StatusOr<Stmt> LowerCumsum(const Cumsum& op, OpContext& ctx) {
  const Buffer& dst = op.dst.buffer;
  RowLoops rows = LoopsExcept(op.src, op.dim, ElementLoopKind(dst), ctx);
  Expr extent = PreferConstant(op.src.ranges[op.dim].extent, op.dst.ranges[op.dim].extent);
  DataType index_type = extent->dtype();
  Expr last = arith::SimplifyExpr(Binary::Make(BinaryOp::kSub, extent, Int(1, index_type)));
  // Scanning shared memory with several threads, each thread runs whole rows (below).
  bool running_sum = ctx.threads > 1 && dst->scope == MemoryScope::kShared;
  Loop s = MakeLoop(ctx, "s", running_sum ? extent : last, ForKind::kSerial);
  if (!running_sum) s.min = Int(1, index_type);

  // Position x of the scan, counted from the end when reversed.
  auto position = [&](const Expr& x) {
    return op.reverse ? arith::SimplifyExpr(Binary::Make(BinaryOp::kSub, last, x)) : x;
  };
  auto index = [&](const Region& region, const Expr& x) {
    std::vector<int> dims = rows.dims;
    dims.push_back(op.dim);
    std::vector<Expr> positions = Vars(rows.loops);
    positions.push_back(position(x));
    return RegionIndices(region, dims, positions);
  };
  absl::Status same_thread = CheckSameThread(ctx, op, op.src, index(op.src, s.var), op.dst,
                                             index(op.dst, s.var), s.var.get());
  if (!same_thread.ok()) {
    if (op.src.buffer->scope != MemoryScope::kFragment && dst->scope != MemoryScope::kFragment) {
      return same_thread;
    }
    return StageScanInShared(op, ctx);
  }

  auto src_at = [&](const Expr& x) {
    return CastTo(dst->dtype, BufferLoad::Make(op.src.buffer, index(op.src, x)));
  };
  if (running_sum) {
    // The sum runs in a register of each thread, which reads and writes each element of its
    // row once, at one index: insert-barriers can see that no thread touches another's row
    // inside the branch that deals rows to threads. A parallel loop over a single row still
    // gives the row to one thread. Adding to -0.0, the exact identity of IEEE addition, keeps
    // every sum as the serial scan below computes it.
    Buffer sum = BufferNode::Make(ctx.names.Fresh(dst->name + "_sum"), dst->dtype, {Int(1)},
                                  MemoryScope::kLocal);
    std::vector<Loop> row_loops = rows.loops;
    if (row_loops.empty()) row_loops.push_back(MakeLoop(ctx, "i", Int(1), ForKind::kParallel));
    Expr running = BufferLoad::Make(sum, {Int(0)});
    Stmt step = Seq::Make(
        {Store::Make(sum, {Int(0)}, Binary::Make(BinaryOp::kAdd, running, src_at(s.var)), op.loc()),
         Store::Make(dst, index(op.dst, s.var), running, op.loc())},
        op.loc());
    Expr identity = dst->dtype.is_float() ? Float(-0.0, dst->dtype) : Zero(dst->dtype);
    Stmt scan = Seq::Make(
        {Store::Make(sum, {Int(0)}, identity, op.loc()), Nest({s}, std::move(step), op.loc())},
        op.loc());
    return Seq::Make({Allocate::Make(sum, op.loc()), Nest(row_loops, std::move(scan), op.loc())},
                     op.loc());
  }
  Expr zero = Int(0, index_type);
  Stmt first = Store::Make(dst, index(op.dst, zero), src_at(zero), op.loc());
  Expr previous = BufferLoad::Make(
      dst,
      index(op.dst, arith::SimplifyExpr(Binary::Make(BinaryOp::kSub, s.var, Int(1, index_type)))));
  Stmt step = Store::Make(dst, index(op.dst, s.var),
                          Binary::Make(BinaryOp::kAdd, previous, src_at(s.var)), op.loc());
  Stmt scan = Seq::Make({std::move(first), Nest({s}, std::move(step), op.loc())}, op.loc());
  return Nest(rows.loops, std::move(scan), op.loc());
}

}  // namespace tile_ir::passes::lowering
