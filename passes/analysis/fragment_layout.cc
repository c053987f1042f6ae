// Construction and comparison of fragment layouts.
#include "passes/analysis/fragment_layout.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "passes/analysis/arith/expr_simplifier.h"
#include "passes/analysis/arith/int_math.h"
#include "passes/utils/substitute.h"
#include "tile_ir/structural_equal.h"
#include "tile_ir/visitor.h"

namespace tile_ir::passes {
namespace {

Expr AsI32(const Expr& e) { return e->dtype() == kI32 ? e : Cast::Make(kI32, e); }

std::vector<VarRef> MakeInputs(size_t rank) {
  static constexpr const char* kNames[] = {"i", "j", "k", "l"};
  std::vector<VarRef> inputs;
  for (size_t d = 0; d < rank; ++d) {
    inputs.push_back(Var::Make(d < 4 ? kNames[d] : absl::StrCat("i", d), kI32));
  }
  return inputs;
}

std::vector<Expr> AsExprs(const std::vector<VarRef>& vars) {
  return std::vector<Expr>(vars.begin(), vars.end());
}

std::vector<Expr> Simplified(std::vector<Expr> exprs) {
  for (Expr& e : exprs) e = arith::SimplifyExpr(e);
  return exprs;
}

class MentionFinder : public IRVisitor {
 public:
  explicit MentionFinder(const Var* var) : var_(var) {}
  bool found() const { return found_; }

 protected:
  void VisitVar(const Var& node) override { found_ |= &node == var_; }

 private:
  const Var* var_;
  bool found_ = false;
};

}  // namespace

Expr RowMajorIndex(const std::vector<Expr>& indices, const std::vector<Expr>& shape) {
  if (indices.empty()) return Int(0);
  Expr linear = indices[0];
  for (size_t d = 1; d < indices.size(); ++d) {
    linear = Binary::Make(BinaryOp::kAdd, Binary::Make(BinaryOp::kMul, linear, AsI32(shape[d])),
                          indices[d]);
  }
  return linear;
}

Layout SingleThreadLayout(const std::vector<Expr>& shape) {
  Layout layout;
  layout.inputs = MakeInputs(shape.size());
  layout.outputs = Simplified({Int(0), RowMajorIndex(AsExprs(layout.inputs), shape)});
  return layout;
}

Layout CyclicLayout(const std::vector<Expr>& shape, int64_t threads) {
  Layout layout;
  layout.inputs = MakeInputs(shape.size());
  Expr linear = RowMajorIndex(AsExprs(layout.inputs), shape);
  Expr t = Int(threads);
  layout.outputs = Simplified(
      {Binary::Make(BinaryOp::kFloorMod, linear, t), Binary::Make(BinaryOp::kFloorDiv, linear, t)});
  return layout;
}

Layout ThreadPerRowLayout(const std::vector<Expr>& shape, int dim, int64_t threads) {
  Layout layout;
  layout.inputs = MakeInputs(shape.size());
  std::vector<Expr> others;
  std::vector<Expr> other_shape;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (static_cast<int>(d) == dim) continue;
    others.push_back(layout.inputs[d]);
    other_shape.push_back(shape[d]);
  }
  Expr row = RowMajorIndex(others, other_shape);
  Expr t = Int(threads);
  Expr reg = Binary::Make(
      BinaryOp::kAdd,
      Binary::Make(BinaryOp::kMul, Binary::Make(BinaryOp::kFloorDiv, row, t), AsI32(shape[dim])),
      layout.inputs[dim]);
  layout.outputs = Simplified({Binary::Make(BinaryOp::kFloorMod, row, t), reg});
  return layout;
}

std::optional<Layout> RowSpreadLayout(const std::vector<Expr>& shape, int dim, int64_t threads,
                                      int64_t vector_elements) {
  const int rank = static_cast<int>(shape.size());
  if (rank == 0 || dim != rank - 1 || threads < 1 || (threads & (threads - 1)) != 0 ||
      vector_elements < 1) {
    return std::nullopt;
  }
  int64_t rows = 1;
  for (int d = 0; d < rank - 1; ++d) {
    std::optional<int64_t> extent = AsConstInt(shape[d]);
    if (!extent || *extent < 1) return std::nullopt;
    rows *= *extent;
  }
  std::optional<int64_t> columns = AsConstInt(shape[dim]);
  if (!columns || *columns < 1) return std::nullopt;
  // Lanes per row first: enough to occupy the block (T / R), at least 4, each holding a
  // column at least; then the widest power-of-two run that the lanes' share of a row divides.
  int64_t wanted = std::max<int64_t>(4, threads / rows);
  int64_t lanes = 1;
  while (lanes * 2 <= wanted && lanes * 2 <= threads && *columns % (lanes * 2) == 0) {
    lanes *= 2;
  }
  int64_t v = 1;
  while (v * 2 <= vector_elements && *columns % (lanes * v * 2) == 0) v *= 2;
  const int64_t slots = threads / lanes;
  const int64_t chunks = *columns / (v * lanes);

  Layout layout;
  layout.inputs = MakeInputs(shape.size());
  std::vector<Expr> others(layout.inputs.begin(), layout.inputs.end() - 1);
  std::vector<Expr> other_shape(shape.begin(), shape.end() - 1);
  Expr row = RowMajorIndex(others, other_shape);
  Expr j = layout.inputs[dim];
  auto op = [](BinaryOp kind, Expr a, int64_t b) {
    return Binary::Make(kind, std::move(a), Int(b));
  };
  Expr lane = op(BinaryOp::kFloorMod, op(BinaryOp::kFloorDiv, j, v), lanes);
  Expr thread = Binary::Make(BinaryOp::kAdd,
                             op(BinaryOp::kMul, op(BinaryOp::kFloorMod, row, slots), lanes), lane);
  Expr run =
      Binary::Make(BinaryOp::kAdd, op(BinaryOp::kMul, op(BinaryOp::kFloorDiv, row, slots), chunks),
                   op(BinaryOp::kFloorDiv, j, v * lanes));
  Expr reg =
      Binary::Make(BinaryOp::kAdd, op(BinaryOp::kMul, run, v), op(BinaryOp::kFloorMod, j, v));
  layout.outputs = Simplified({thread, reg});
  return SimplifyLayout(layout, shape);
}

Layout ReducedLayout(const Layout& src, int dim, bool keeps_dim) {
  Layout layout;
  layout.inputs = MakeInputs(keeps_dim ? src.inputs.size() : src.inputs.size() - 1);
  std::vector<Expr> src_indices;
  for (size_t d = 0, next = 0; d < src.inputs.size(); ++d) {
    if (static_cast<int>(d) == dim) {
      src_indices.push_back(Int(0));
      if (keeps_dim) ++next;
    } else {
      src_indices.push_back(layout.inputs[next++]);
    }
  }
  layout.outputs = Simplified(ApplyLayout(src, src_indices));
  return layout;
}

Layout ExpandedLayout(const Layout& dst, int dim, const Expr& extent, bool dst_keeps_dim) {
  Layout layout;
  layout.inputs = MakeInputs(dst_keeps_dim ? dst.inputs.size() : dst.inputs.size() + 1);
  std::vector<Expr> dst_indices;
  for (size_t d = 0; d < layout.inputs.size(); ++d) {
    if (static_cast<int>(d) != dim) {
      dst_indices.push_back(layout.inputs[d]);
    } else if (dst_keeps_dim) {
      dst_indices.push_back(Int(0));
    }
  }
  std::vector<Expr> at = ApplyLayout(dst, dst_indices);
  Expr reg = Binary::Make(BinaryOp::kAdd, Binary::Make(BinaryOp::kMul, at[1], AsI32(extent)),
                          layout.inputs[dim]);
  std::vector<Expr> outputs = {at[0], reg};
  outputs.insert(outputs.end(), at.begin() + 2, at.end());
  layout.outputs = Simplified(std::move(outputs));
  return layout;
}

Layout SimplifyLayout(const Layout& layout, const std::vector<Expr>& shape) {
  arith::ExprSimplifier simplifier;
  for (size_t d = 0; d < layout.inputs.size() && d < shape.size(); ++d) {
    std::optional<int64_t> size = AsConstInt(shape[d]);
    simplifier.BindRange(layout.inputs[d], {0, size ? *size - 1 : arith::TypeMax(kI32)});
  }
  if (layout.replica) simplifier.BindRange(layout.replica, {0, layout.replicate - 1});
  Layout simplified = layout;
  for (Expr& e : simplified.outputs) e = simplifier.Simplify(e);
  return simplified;
}

Layout CopyLayout(const Layout& layout) {
  Layout copy;
  copy.inputs = MakeInputs(layout.inputs.size());
  copy.outputs = ApplyLayout(layout, AsExprs(copy.inputs));
  if (layout.replica) {
    copy.replica = Var::Make(layout.replica->name, kI32);
    copy.replicate = layout.replicate;
    copy.outputs[0] = ReplicaThread(layout, AsExprs(copy.inputs), copy.replica);
  }
  return copy;
}

Expr ReplicaThread(const Layout& layout, const std::vector<Expr>& indices, const Expr& replica) {
  VarMap map;
  for (size_t d = 0; d < layout.inputs.size() && d < indices.size(); ++d) {
    map[layout.inputs[d].get()] = indices[d];
  }
  if (layout.replica) map[layout.replica.get()] = replica;
  return Substitute(layout.outputs[0], map);
}

std::vector<Expr> ApplyLayout(const Layout& layout, const std::vector<Expr>& indices) {
  VarMap map;
  for (size_t d = 0; d < layout.inputs.size() && d < indices.size(); ++d) {
    map[layout.inputs[d].get()] = indices[d];
  }
  std::vector<Expr> outputs;
  for (const Expr& e : layout.outputs) outputs.push_back(Substitute(e, map));
  return outputs;
}

bool SameLayout(const Layout& a, const Layout& b) {
  if (a.inputs.size() != b.inputs.size() || a.outputs.size() != b.outputs.size()) return false;
  if (a.replicated() != b.replicated() || a.replicate != b.replicate) return false;
  std::vector<Expr> b_outputs = ApplyLayout(b, AsExprs(a.inputs));
  if (a.replica) b_outputs[0] = ReplicaThread(b, AsExprs(a.inputs), a.replica);
  for (size_t i = 0; i < a.outputs.size(); ++i) {
    if (!StructuralEqual(arith::SimplifyExpr(a.outputs[i]), arith::SimplifyExpr(b_outputs[i])))
      return false;
  }
  return true;
}

bool Mentions(const Expr& e, const Var* var) {
  MentionFinder finder(var);
  finder.Visit(e);
  return finder.found();
}

}  // namespace tile_ir::passes
