// Loop, index and constant helpers of lower-tile-ops, and its check that the
// element-wise loops it emits only touch registers of the executing thread.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "passes/analysis/arith/expr_simplifier.h"
#include "passes/analysis/arith/int_math.h"
#include "passes/analysis/fragment_layout.h"
#include "passes/transforms/lower_tile_ops_internal.h"
#include "tile_ir/intrinsics.h"
#include "tile_ir/printer.h"
#include "tile_ir/structural_equal.h"

namespace tile_ir::passes::lowering {

absl::Status OpError(const OpContext& ctx, const StmtNode& op, absl::StatusCode code,
                     absl::string_view message) {
  std::string where = op.loc().known() ? absl::StrCat(op.loc().ToString(), ": ") : "";
  return absl::Status(code, absl::StrCat(where, "in kernel '", ctx.kernel.name, "': ", message));
}

void OpRemark(const OpContext& ctx, const StmtNode& op, absl::string_view message) {
  if (ctx.remarks == nullptr) return;
  std::string where = op.loc().known() ? absl::StrCat(op.loc().ToString(), ": ") : "";
  ctx.remarks->push_back(
      absl::StrCat(where, "in kernel '", ctx.kernel.name, "': lower-tile-ops: ", message));
}

Loop MakeLoop(OpContext& ctx, std::string_view base, const Expr& extent, ForKind kind) {
  DataType dtype = extent->dtype();
  return {Var::Make(ctx.names.Fresh(base), dtype), Int(0, dtype), extent, kind};
}

std::string DimName(size_t position) {
  static constexpr const char* kNames[] = {"i", "j", "k", "l"};
  return position < 4 ? kNames[position] : absl::StrCat("d", position);
}

Stmt Nest(const std::vector<Loop>& loops, Stmt body, const SourceLoc& loc) {
  for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
    body = For::Make(it->var, it->min, it->extent, it->kind, std::move(body), loc);
  }
  return body;
}

ForKind ElementLoopKind(const Buffer& written) {
  return written->scope == MemoryScope::kLocal ? ForKind::kSerial : ForKind::kParallel;
}

std::vector<int> NonUnitDims(const Region& region) {
  std::vector<int> dims;
  for (size_t d = 0; d < region.ranges.size(); ++d) {
    if (AsConstInt(region.ranges[d].extent) != 1) dims.push_back(static_cast<int>(d));
  }
  return dims;
}

std::vector<Expr> RegionIndices(const Region& region, const std::vector<int>& dims,
                                const std::vector<Expr>& positions) {
  std::vector<Expr> indices;
  for (const Range& range : region.ranges) indices.push_back(range.min);
  for (size_t p = 0; p < dims.size(); ++p) {
    indices[dims[p]] = Offset(indices[dims[p]], positions[p]);
  }
  return indices;
}

Expr Offset(const Expr& base, const Expr& offset) {
  Expr cast = CastTo(base->dtype(), offset);
  if (AsConstInt(base) == 0) return cast;
  return Binary::Make(BinaryOp::kAdd, base, std::move(cast));
}

Expr PreferConstant(const Expr& a, const Expr& b) {
  return AsConstInt(a) || !AsConstInt(b) ? a : b;
}

Expr CastTo(DataType dtype, const Expr& value) {
  return value->dtype() == dtype ? value : Cast::Make(dtype, value);
}

Expr Zero(DataType dtype) { return dtype.is_float() ? Float(0.0, dtype) : Int(0, dtype); }

Expr Lowest(DataType dtype) {
  if (dtype.is_float()) return Float(-std::numeric_limits<double>::infinity(), dtype);
  return Int(arith::TypeMin(dtype), dtype);
}

Expr Highest(DataType dtype) {
  if (dtype.is_float()) return Float(std::numeric_limits<double>::infinity(), dtype);
  // u64's top, 2^64 - 1, is past what its IntImm holds: the bits of -1 as an i64.
  if (dtype.scalar() == ScalarType::kU64) return Call::Make(dtype, kReinterpret, {Int(-1, kI64)});
  return Int(arith::TypeMax(dtype), dtype);
}

namespace {

// The thread that holds region.buffer[indices], simplified, for the replica `replica` of a
// replicated layout (one variable for both sides of a check, so that two fragments replicated
// alike compare equal); null when the buffer is not a fragment with a layout.
Expr ThreadOf(const Region& region, const std::vector<Expr>& indices,
              arith::ExprSimplifier& simplifier, const Expr& replica) {
  const BufferNode& buffer = *region.buffer;
  if (buffer.scope != MemoryScope::kFragment || !buffer.layout) return nullptr;
  std::vector<Expr> i32_indices;
  for (const Expr& index : indices) i32_indices.push_back(CastTo(kI32, index));
  return simplifier.Simplify(ReplicaThread(*buffer.layout, i32_indices, replica));
}

int64_t Replicas(const Region& region) {
  const BufferNode& buffer = *region.buffer;
  return buffer.scope == MemoryScope::kFragment && buffer.layout ? buffer.layout->replicate : 1;
}

}  // namespace

absl::Status CheckSameThread(const OpContext& ctx, const StmtNode& op, const Region& src,
                             const std::vector<Expr>& src_indices, const Region& dst,
                             const std::vector<Expr>& dst_indices, const Var* along) {
  if (ctx.threads <= 1) return absl::OkStatus();
  arith::ExprSimplifier simplifier;
  VarRef replica = Var::Make("replica", kI32);
  simplifier.BindRange(replica, {0, std::max(Replicas(src), Replicas(dst)) - 1});
  Expr src_thread = ThreadOf(src, src_indices, simplifier, replica);
  Expr dst_thread = ThreadOf(dst, dst_indices, simplifier, replica);
  // A replicated source read by an unreplicated destination, or the other way round, may
  // still coincide for one replica; the check below asks for equality, so it refuses them.
  if (Replicas(src) != Replicas(dst) && src_thread && dst_thread) {
    return OpError(ctx, op, absl::StatusCode::kFailedPrecondition,
                   absl::StrCat("'", src.buffer->name, "' and '", dst.buffer->name,
                                "' are replicated differently (", Replicas(src), " and ",
                                Replicas(dst), " copies of each element); give the fragments "
                                "matching layouts"));
  }
  for (const auto& [region, thread] : {std::pair{&src, src_thread}, std::pair{&dst, dst_thread}}) {
    if (thread && along && Mentions(thread, along)) {
      return OpError(ctx, op, absl::StatusCode::kFailedPrecondition,
                     absl::StrCat("the layout of '", region->buffer->name,
                                  "' spreads the elements combined along '", along->name,
                                  "' over several threads (thread ", Print(thread),
                                  "); a cross-thread reduction or scan needs the target's own "
                                  "lowering, which target '",
                                  ctx.target.name(), "' does not provide"));
    }
  }
  if (!src_thread || !dst_thread || StructuralEqual(src_thread, dst_thread)) {
    return absl::OkStatus();
  }
  Expr difference = simplifier.Simplify(Binary::Make(BinaryOp::kSub, src_thread, dst_thread));
  if (AsConstInt(difference) == 0) return absl::OkStatus();
  return OpError(
      ctx, op, absl::StatusCode::kFailedPrecondition,
      absl::StrCat("'", src.buffer->name, "' and '", dst.buffer->name,
                   "' hold corresponding elements on different threads (", Print(src_thread),
                   " and ", Print(dst_thread), "); give the fragments matching layouts"));
}

}  // namespace tile_ir::passes::lowering
