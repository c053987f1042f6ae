// Lowering of gemm: the target's instructions when it offers them, otherwise
// multiply-add loops in the accumulator's type.
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "passes/transforms/lower_tile_ops_internal.h"

namespace tile_ir::passes::lowering {
namespace {

// A gemm operand as a matrix: its region once leading dimensions of literal
// extent 1 are dropped (a [1, 64, 32] slice of a staged buffer is 64x32).
struct Matrix {
  const Region* region;
  int row_dim;
  int col_dim;

  const Expr& rows() const { return region->ranges[row_dim].extent; }
  const Expr& cols() const { return region->ranges[col_dim].extent; }

  Expr At(const Expr& row, const Expr& col) const {
    return BufferLoad::Make(region->buffer, RegionIndices(*region, {row_dim, col_dim}, {row, col}));
  }
};

std::optional<Matrix> AsMatrix(const Region& region) {
  int rank = static_cast<int>(region.ranges.size());
  int first = 0;
  while (rank - first > 2 && AsConstInt(region.ranges[first].extent) == 1) ++first;
  if (rank - first != 2) return std::nullopt;
  return Matrix{&region, first, first + 1};
}

bool IsFragment(const Region& region) { return region.buffer->scope == MemoryScope::kFragment; }

// A gemm of several threads reads whole rows of A and columns of B, which a
// fragment spreads over threads; such an operand is first copied into a new
// shared tile (insert-barriers orders the copy before the reads). This is how
// attention's P * V runs where the target has no register-operand gemm.
absl::StatusOr<Stmt> StageFragmentOperands(const Gemm& op, OpContext& ctx) {
  std::vector<Stmt> stmts;
  auto stage = [&](const Region& operand) -> absl::StatusOr<Region> {
    if (!IsFragment(operand)) return operand;
    std::optional<Matrix> m = AsMatrix(operand);
    if (!m) {
      return OpError(ctx, op, absl::StatusCode::kInvalidArgument,
                     "gemm operands must be 2-D regions (leading unit dimensions aside)");
    }
    Buffer staged = BufferNode::Make(ctx.names.Fresh(operand.buffer->name + "_staged"),
                                     operand.buffer->dtype, {m->rows(), m->cols()},
                                     MemoryScope::kShared);
    OpRemark(ctx, op,
             absl::StrCat("gemm operand '", operand.buffer->name,
                          "' is a fragment that the target's gemm does not read from "
                          "registers in this layout: it goes through shared memory ('",
                          staged->name, "')"));
    stmts.push_back(Allocate::Make(staged, op.loc()));
    Stmt copy = Copy::Make(operand, Region::Full(staged), op.loc());
    absl::StatusOr<Stmt> lowered = LowerCopy(*As<Copy>(copy), ctx);
    if (!lowered.ok()) return lowered.status();
    stmts.push_back(*std::move(lowered));
    return Region::Full(staged);
  };
  absl::StatusOr<Region> a = stage(op.a);
  if (!a.ok()) return a.status();
  absl::StatusOr<Region> b = stage(op.b);
  if (!b.ok()) return b.status();
  Stmt gemm = Gemm::Make(*a, *b, op.c, op.transpose_a, op.transpose_b, op.policy,
                         op.clear_accum, op.loc());
  absl::StatusOr<Stmt> lowered = LowerGemm(*As<Gemm>(gemm), ctx);
  if (!lowered.ok()) return lowered.status();
  stmts.push_back(*std::move(lowered));
  return Seq::Make(std::move(stmts), op.loc());
}

}  // namespace

absl::StatusOr<Stmt> LowerGemm(const Gemm& op, OpContext& ctx) {
  absl::StatusOr<std::optional<Stmt>> by_target =
      ctx.target.LowerGemm({&op, &ctx.kernel, &ctx.names});
  if (!by_target.ok()) {
    return OpError(ctx, op, by_target.status().code(), by_target.status().message());
  }
  if (*by_target) return **by_target;

  std::optional<Matrix> a = AsMatrix(op.a);
  std::optional<Matrix> b = AsMatrix(op.b);
  std::optional<Matrix> c = AsMatrix(op.c);
  if (!a || !b || !c) {
    return OpError(ctx, op, absl::StatusCode::kInvalidArgument,
                   "gemm operands must be 2-D regions (leading unit dimensions aside)");
  }
  const Buffer& acc = op.c.buffer;
  bool per_thread = ctx.threads <= 1 || acc->scope == MemoryScope::kLocal;
  if (!per_thread && (IsFragment(op.a) || IsFragment(op.b))) {
    return StageFragmentOperands(op, ctx);
  }

  // The clearing loops come first in the program, so they get the first names.
  Stmt clear;
  if (op.clear_accum) {
    Stmt fill = Fill::Make(op.c, Zero(acc->dtype), op.loc());
    absl::StatusOr<Stmt> lowered = LowerFill(*As<Fill>(fill), ctx);
    if (!lowered.ok()) return lowered.status();
    clear = *std::move(lowered);
  }

  Expr m = c->rows();
  Expr n = c->cols();
  Expr k_extent = PreferConstant(op.transpose_a ? a->rows() : a->cols(),
                                 op.transpose_b ? b->cols() : b->rows());
  ForKind inner = ElementLoopKind(acc);
  Loop i = MakeLoop(ctx, "i", m, per_thread ? ForKind::kSerial : inner);
  Loop j = MakeLoop(ctx, "j", n, inner);
  Loop k = MakeLoop(ctx, "k", k_extent, ForKind::kSerial);

  std::vector<Expr> c_index = RegionIndices(op.c, {c->row_dim, c->col_dim}, {i.var, j.var});
  Expr a_value = op.transpose_a ? a->At(k.var, i.var) : a->At(i.var, k.var);
  Expr b_value = op.transpose_b ? b->At(j.var, k.var) : b->At(k.var, j.var);
  Expr product =
      Binary::Make(BinaryOp::kMul, CastTo(acc->dtype, a_value), CastTo(acc->dtype, b_value));
  Expr sum = Binary::Make(BinaryOp::kAdd, BufferLoad::Make(acc, c_index), std::move(product));
  Stmt update = Store::Make(acc, c_index, std::move(sum), op.loc());
  Stmt loops = per_thread ? Nest({i, k, j}, std::move(update), op.loc())
                          : Nest({i, j, k}, std::move(update), op.loc());
  if (!clear) return loops;
  return Seq::Make({std::move(clear), std::move(loops)}, op.loc());
}

}  // namespace tile_ir::passes::lowering
