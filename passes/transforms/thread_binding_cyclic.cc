// Thread binding of parallel nests that touch no fragment: the elements of the flattened
// nest are dealt out to the threads in turn.
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "passes/analysis/arith/expr_simplifier.h"
#include "passes/analysis/fragment_layout.h"
#include "passes/transforms/thread_binding_internal.h"
#include "passes/utils/substitute.h"
#include "tile_ir/mutator.h"

namespace tile_ir::passes::thread_binding {
namespace {

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

// The widest element, in bits, that a statement loads or stores; 0 when it has a guard that
// varies along the innermost loop (`var`: a select whose condition mentions it, or any if),
// a call or a nested loop, which keep the vectorize pass from widening it. A select whose
// condition holds for a whole run (bound-predication's guard of a ragged row: `select(row <
// M, A[min(row, M - 1), col], 0)`) widens into one select of vectors.
class PlainAccesses : public IRVisitor {
 public:
  explicit PlainAccesses(const Var* var) : var_(var) {}
  using IRVisitor::Visit;
  int widest = 0;
  bool plain = true;

 protected:
  void VisitBufferLoad(const BufferLoad& node) override {
    Widen(*node.buffer);
    IRVisitor::VisitBufferLoad(node);
  }
  void VisitStore(const Store& node) override {
    Widen(*node.buffer);
    IRVisitor::VisitStore(node);
  }
  void VisitSelect(const Select& node) override {
    if (Mentions(node.cond, var_)) plain = false;
    IRVisitor::VisitSelect(node);
  }
  void VisitCall(const Call&) override { plain = false; }
  void VisitIf(const If&) override { plain = false; }
  void VisitFor(const For&) override { plain = false; }

 private:
  void Widen(const BufferNode& buffer) {
    if (buffer.dtype.bits() < 8 || buffer.dtype.lanes() != 1) plain = false;
    widest = std::max(widest, buffer.dtype.bits());
  }
  const Var* var_;
};

// The single statement of a body, or the body itself.
const Stmt& OnlyStatement(const Stmt& body) {
  const Seq* seq = As<Seq>(body);
  return seq && seq->stmts.size() == 1 ? seq->stmts[0] : body;
}

// `if (cond) store` whose condition holds for a whole run of the innermost loop `var` (it does
// not mention it: bound-predication's guard of a ragged row, `if (row < M) O[row, col] = ...`),
// or nullptr. Such a guard is tested once per run, outside the vectorized loop.
const If* RunGuard(const Stmt& body, const Var* var) {
  const If* guard = As<If>(OnlyStatement(body));
  if (guard == nullptr || guard->else_body != nullptr || Mentions(guard->cond, var)) {
    return nullptr;
  }
  return As<Store>(OnlyStatement(guard->then_body)) != nullptr ? guard : nullptr;
}

// Lanes per run for the innermost loop of a nest whose body is `body`: the most elements
// of the widest accessed type that fit `vector_bytes` and divide `extent`; 1 when the body
// is not a single store (or a RunGuard around one) without a guard that varies along `var`,
// the innermost loop's.
int64_t RunLanes(const Stmt& body, const Var* var, int64_t extent, int vector_bytes) {
  const If* guard = RunGuard(body, var);
  const Stmt& only = OnlyStatement(guard != nullptr ? guard->then_body : body);
  if (As<Store>(only) == nullptr) return 1;
  PlainAccesses accesses(var);
  accesses.Visit(only);
  if (!accesses.plain || accesses.widest == 0) return 1;
  int64_t lanes = int64_t{vector_bytes} * 8 / accesses.widest;
  while (lanes > 1 && extent % lanes != 0) lanes /= 2;
  return lanes;
}

}  // namespace

absl::StatusOr<Stmt> DealCyclically(const KernelNode& kernel, const For& root, int64_t threads,
                                    const Expr& thread, int vector_bytes, FreshNames& names) {
  std::vector<const For*> chain = ParallelChain(root);
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
  DataType type = FlatIndexType(root);
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
  // Runs of `lanes` consecutive innermost elements go to one thread, which loops over them
  // in a vectorized loop; the nest is dealt out in runs.
  const For& innermost = *chain.back();
  std::optional<int64_t> inner_extent = AsConstInt(innermost.extent);
  int64_t lanes =
      inner_extent ? RunLanes(innermost.body, innermost.var.get(), *inner_extent, vector_bytes) : 1;
  if (lanes > 1) extents.back() = Int(*inner_extent / lanes, type);
  Expr total = extents[0];
  for (size_t d = 1; d < extents.size(); ++d) total = Op(BinaryOp::kMul, total, extents[d]);
  total = arith::SimplifyExpr(total);
  Expr block = Int(threads, type);
  VarRef round = Var::Make(names.Fresh("r"), type);
  VarRef element = Var::Make(names.Fresh("e"), type);
  std::vector<Stmt> inner;
  VarRef run_start;
  Expr stride;  // the product of the extents inside dimension d
  for (size_t d = chain.size(); d-- > 0;) {
    Expr position = stride ? Op(BinaryOp::kDiv, element, stride) : Expr(element);
    if (d > 0) position = Op(BinaryOp::kMod, position, extents[d]);
    const For& loop = *chain[d];
    stride = stride ? Op(BinaryOp::kMul, stride, extents[d]) : extents[d];
    if (lanes > 1 && d + 1 == chain.size()) {
      // The run's first element; the vectorized loop below adds the lane.
      run_start = Var::Make(names.Fresh(loop.var->name + "_run"), type);
      Expr start =
          Op(BinaryOp::kAdd, in_type(loop.min), Op(BinaryOp::kMul, position, Int(lanes, type)));
      inner.insert(inner.begin(), Let::Make(run_start, arith::SimplifyExpr(start), loop.loc()));
      continue;
    }
    Expr value = Op(BinaryOp::kAdd, in_type(loop.min), position);
    if (loop.var->dtype() != type) value = Cast::Make(loop.var->dtype(), value);
    inner.insert(inner.begin(), Let::Make(loop.var, arith::SimplifyExpr(value), loop.loc()));
  }
  Stmt element_body = SerialLoops().Mutate(chain.back()->body);
  if (lanes > 1) {
    VarRef lane = Var::Make(names.Fresh(innermost.var->name + "_lane"), type);
    Expr element_index = Op(BinaryOp::kAdd, run_start, lane);
    if (innermost.var->dtype() != type) {
      element_index = Cast::Make(innermost.var->dtype(), element_index);
    }
    VarMap at_lane;
    at_lane[innermost.var.get()] = element_index;
    const If* guard = RunGuard(element_body, innermost.var.get());
    Stmt run = For::Make(lane, Int(0, type), Int(lanes, type), ForKind::kVectorized,
                         Substitute(guard != nullptr ? guard->then_body : element_body, at_lane),
                         innermost.loc());
    element_body = guard != nullptr ? If::Make(guard->cond, run, nullptr, guard->loc()) : run;
  }
  if (const Seq* seq = As<Seq>(element_body)) {
    inner.insert(inner.end(), seq->stmts.begin(), seq->stmts.end());
  } else {
    inner.push_back(element_body);
  }
  Expr first = arith::SimplifyExpr(Op(BinaryOp::kAdd, Op(BinaryOp::kMul, round, block),
                                      thread->dtype() == type ? thread : Cast::Make(type, thread)));
  std::vector<Stmt> body = {Let::Make(element, first, root.loc())};
  std::optional<int64_t> constant_total = AsConstInt(total);
  if (!constant_total || *constant_total % threads != 0) {
    body.push_back(If::Make(Op(BinaryOp::kLt, element, total),
                            Seq::Make(std::move(inner), root.loc()), nullptr, root.loc()));
  } else {
    body.insert(body.end(), inner.begin(), inner.end());
  }
  return For::Make(round, Int(0, type), arith::SimplifyExpr(Op(BinaryOp::kCeilDiv, total, block)),
                   ForKind::kSerial, Seq::Make(std::move(body), root.loc()), root.loc());
}

}  // namespace tile_ir::passes::thread_binding
