// Thread binding of parallel nests that touch no fragment: the elements of the flattened
// nest are dealt out to the threads in turn.
#include <optional>
#include <utility>
#include <vector>

#include "passes/simplify.h"
#include "passes/thread_binding_internal.h"
#include "tile_ir/mutator.h"

namespace tile_ir::passes::thread_binding {
namespace {

Expr Op(BinaryOp op, Expr a, Expr b) { return Binary::Make(op, std::move(a), std::move(b)); }

// Parallel loops inside an element a thread owns run serially on that thread.
class SerialLoops : public IRMutator {
 protected:
  Stmt MutateFor(const For& node, const Stmt& self) override {
    Stmt body = MutateBody(node.body);
    if (node.for_kind != ForKind::kParallel && body == node.body) return self;
    ForKind kind = node.for_kind == ForKind::kParallel ? ForKind::kSerial : node.for_kind;
    return For::Make(node.var, node.min, node.extent, kind, std::move(body), node.loc(),
                     node.pipeline, node.thread_axis);
  }
};

}  // namespace

absl::StatusOr<Stmt> DealCyclically(const KernelNode& kernel, const For& root, int64_t threads,
                                    const Expr& thread, FreshNames& names) {
  std::vector<const For*> chain = {&root};
  while (true) {
    const Stmt& body = chain.back()->body;
    const Seq* seq = As<Seq>(body);
    const For* inner = As<For>(seq && seq->stmts.size() == 1 ? seq->stmts[0] : body);
    if (inner == nullptr || inner->for_kind != ForKind::kParallel) break;
    chain.push_back(inner);
  }
  Contents contents = Scan(chain.back()->body);
  if (contents.tile_op) {
    return StmtError(kernel, chain.back()->body,
                     "tile operations must be lowered first (run lower-tile-ops)");
  }
  if (contents.barrier) {
    return StmtError(kernel, chain.back()->body,
                     "a barrier in a parallel loop would execute only on the threads that hold "
                     "an element");
  }
  DataType type = root.var->dtype();
  auto in_type = [&](const Expr& e) { return e->dtype() == type ? e : Cast::Make(type, e); };
  // Extents of a flattened nest are clamped at 0: two negative ones must not multiply
  // into iterations.
  std::vector<Expr> extents;
  for (const For* loop : chain) {
    Expr extent = in_type(loop->extent);
    if (chain.size() > 1 && !AsConstInt(extent)) {
      extent = Op(BinaryOp::kMax, extent, Int(0, type));
    }
    extents.push_back(extent);
  }
  Expr total = extents[0];
  for (size_t d = 1; d < extents.size(); ++d) total = Op(BinaryOp::kMul, total, extents[d]);
  total = SimplifyExpr(total);
  Expr block = Int(threads, type);
  VarRef round = Var::Make(names.Fresh("r"), type);
  VarRef element = Var::Make(names.Fresh("e"), type);
  std::vector<Stmt> inner;
  Expr stride;  // the product of the extents inside dimension d
  for (size_t d = chain.size(); d-- > 0;) {
    Expr position = stride ? Op(BinaryOp::kDiv, element, stride) : Expr(element);
    if (d > 0) position = Op(BinaryOp::kMod, position, extents[d]);
    const For& loop = *chain[d];
    Expr value = Op(BinaryOp::kAdd, in_type(loop.min), position);
    if (loop.var->dtype() != type) value = Cast::Make(loop.var->dtype(), value);
    inner.insert(inner.begin(), Let::Make(loop.var, SimplifyExpr(value), loop.loc()));
    stride = stride ? Op(BinaryOp::kMul, stride, extents[d]) : extents[d];
  }
  Stmt element_body = SerialLoops().Mutate(chain.back()->body);
  if (const Seq* seq = As<Seq>(element_body)) {
    inner.insert(inner.end(), seq->stmts.begin(), seq->stmts.end());
  } else {
    inner.push_back(element_body);
  }
  Expr first = SimplifyExpr(Op(BinaryOp::kAdd, Op(BinaryOp::kMul, round, block),
                               thread->dtype() == type ? thread : Cast::Make(type, thread)));
  std::vector<Stmt> body = {Let::Make(element, first, root.loc())};
  std::optional<int64_t> constant_total = AsConstInt(total);
  if (!constant_total || *constant_total % threads != 0) {
    body.push_back(If::Make(Op(BinaryOp::kLt, element, total),
                            Seq::Make(std::move(inner), root.loc()), nullptr, root.loc()));
  } else {
    body.insert(body.end(), inner.begin(), inner.end());
  }
  return For::Make(round, Int(0, type), SimplifyExpr(Op(BinaryOp::kCeilDiv, total, block)),
                   ForKind::kSerial, Seq::Make(std::move(body), root.loc()), root.loc());
}

}  // namespace tile_ir::passes::thread_binding
