// Shared pieces of lower-tile-ops, private to its library: the context an
// operation is lowered in, loop and index helpers, and one entry per operation.
#ifndef PASSES_TRANSFORMS_LOWER_TILE_OPS_INTERNAL_H_
#define PASSES_TRANSFORMS_LOWER_TILE_OPS_INTERNAL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "passes/pass/target_info.h"
#include "passes/utils/fresh_names.h"
#include "tile_ir/module.h"

namespace tile_ir::passes::lowering {

struct OpContext {
  const KernelNode& kernel;
  const TargetInfo& target;
  int64_t threads;  // T: the threads that execute a block
  FreshNames& names;
  std::vector<std::string>* remarks = nullptr;  // PassOptions::Remark's, when asked for
};

// An error about operation `op`: "<loc>: in kernel 'k': <message>".
absl::Status OpError(const OpContext& ctx, const StmtNode& op, absl::StatusCode code,
                     absl::string_view message);

// A remark about operation `op`, where the run asked for them: "<loc>: in kernel 'k':
// lower-tile-ops: <message>".
void OpRemark(const OpContext& ctx, const StmtNode& op, absl::string_view message);

struct Loop {
  VarRef var;
  Expr min;
  Expr extent;
  ForKind kind;
};

// A loop over [0, extent) whose variable is fresh, named after `base`, and
// of the extent's type.
Loop MakeLoop(OpContext& ctx, std::string_view base, const Expr& extent, ForKind kind);
// The loop names of element dimensions: i, j, k, l, then d4, d5, ...
std::string DimName(size_t position);
// `body` inside `loops`, the first outermost.
Stmt Nest(const std::vector<Loop>& loops, Stmt body, const SourceLoc& loc);

// Parallel loops for element-wise work, but serial ones when they write a
// local buffer: every thread holds all of it.
ForKind ElementLoopKind(const Buffer& written);

// The dimensions of `region` whose extent is not the literal 1.
std::vector<int> NonUnitDims(const Region& region);
// The region's starts, with positions[p] added to dimension dims[p].
std::vector<Expr> RegionIndices(const Region& region, const std::vector<int>& dims,
                                const std::vector<Expr>& positions);
// `base + offset` in base's type (offset cast when needed); `offset` alone
// when base is the literal 0.
Expr Offset(const Expr& base, const Expr& offset);
// Of two extents that must be equal, the one that is a literal, if any.
Expr PreferConstant(const Expr& a, const Expr& b);

Expr CastTo(DataType dtype, const Expr& value);
Expr Zero(DataType dtype);
// -inf (floats) or the type's minimum, and +inf or its maximum.
Expr Lowest(DataType dtype);
Expr Highest(DataType dtype);

// With T > 1: when `along` (a loop variable, may be null) changes the thread
// that holds src[src_indices] or dst[dst_indices], or when both are
// fragments whose elements live on different threads, an error saying so.
// Fragments without a layout and T == 1 pass.
absl::Status CheckSameThread(const OpContext& ctx, const StmtNode& op, const Region& src,
                             const std::vector<Expr>& src_indices, const Region& dst,
                             const std::vector<Expr>& dst_indices, const Var* along);

absl::StatusOr<Stmt> LowerCopy(const Copy& op, OpContext& ctx);
absl::StatusOr<Stmt> LowerFill(const Fill& op, OpContext& ctx);
absl::StatusOr<Stmt> LowerAtomicAdd(const AtomicAdd& op, OpContext& ctx);
absl::StatusOr<Stmt> LowerGemm(const Gemm& op, OpContext& ctx);
absl::StatusOr<Stmt> LowerReduce(const Reduce& op, OpContext& ctx);
absl::StatusOr<Stmt> LowerCumsum(const Cumsum& op, OpContext& ctx);

}  // namespace tile_ir::passes::lowering

#endif  // PASSES_TRANSFORMS_LOWER_TILE_OPS_INTERNAL_H_
