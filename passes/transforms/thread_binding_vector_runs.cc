// Binding with several threads per block: the separable register walk in vector runs. Where
// each thread's registers come in runs of V that hold V neighbouring elements of the nest's
// last dimension (a row spread over lanes in runs of V, passes/analysis/fragment_layout.h),
// the walk visits one run per step and the run's elements in a `vectorized` loop, so that
// `vectorize` makes one wide access of each global or shared operand: a 16-byte load per
// thread instead of eight 2-byte ones.
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "passes/analysis/arith/expr_simplifier.h"
#include "passes/analysis/fragment_threads.h"
#include "passes/transforms/thread_binding_binder.h"
#include "passes/utils/stmt_simplifier.h"
#include "passes/utils/substitute.h"
#include "tile_ir/visitor.h"

namespace tile_ir::passes::thread_binding {
namespace {

// The buffers a body touches: the widest element, and whether any lies outside registers.
struct Touched {
  int widest_bits = 0;
  bool memory = false;
};

Touched TouchedBuffers(const Stmt& body) {
  class Finder : public IRVisitor {
   public:
    using IRVisitor::Visit;
    Touched touched;

   protected:
    void VisitBufferLoad(const BufferLoad& node) override {
      Note(*node.buffer);
      IRVisitor::VisitBufferLoad(node);
    }
    void VisitStore(const Store& node) override {
      Note(*node.buffer);
      IRVisitor::VisitStore(node);
    }

   private:
    void Note(const BufferNode& buffer) {
      touched.widest_bits = std::max(touched.widest_bits, buffer.dtype.bits());
      touched.memory |=
          buffer.scope == MemoryScope::kGlobal || buffer.scope == MemoryScope::kShared;
    }
  };
  Finder finder;
  finder.Visit(body);
  return finder.touched;
}

// Whether values[r] = values[r - r % run] + step * (r % run) for every r.
bool StepsInRuns(const std::vector<int64_t>& values, int64_t run, int64_t step) {
  for (size_t r = 0; r < values.size(); ++r) {
    if (values[r] != values[r - r % run] + step * static_cast<int64_t>(r % run)) return false;
  }
  return true;
}

std::vector<std::optional<int64_t>> RunStarts(const std::vector<int64_t>& values, int64_t run) {
  std::vector<std::optional<int64_t>> starts;
  for (size_t r = 0; r < values.size(); r += run) starts.push_back(values[r]);
  return starts;
}

}  // namespace

void Binder::PinRunConstantRegisters(const VarRef& round, const Expr& run_start, int64_t run,
                                     int64_t registers) {
  for (auto& [node, reg] : register_override_) {
    std::vector<int64_t> values;
    for (int64_t r = 0; r < registers; ++r) {
      std::optional<int64_t> value = EvaluateInt(reg, IntEnv{{round.get(), r}});
      if (!value) break;
      values.push_back(*value);
    }
    if (static_cast<int64_t>(values.size()) == registers && StepsInRuns(values, run, 0)) {
      reg = arith::SimplifyExpr(SubstituteVar(reg, round.get(), run_start));
    }
  }
}

std::optional<int64_t> Binder::VectorRunLimit(
    const Stmt& body, int64_t registers, const VarRef& round,
    std::vector<std::vector<int64_t>>* access_registers) const {
  const Stmt* single = &body;
  if (const Seq* seq = As<Seq>(body); seq != nullptr && seq->stmts.size() == 1) {
    single = &seq->stmts[0];
  }
  if (As<Store>(*single) == nullptr) return std::nullopt;
  Touched touched = TouchedBuffers(body);
  if (!touched.memory || touched.widest_bits < 8) return std::nullopt;
  // Every fragment access must have found its register as a function of the round.
  for (const auto& [node, reg] : register_override_) {
    if (!reg) return std::nullopt;
    std::vector<int64_t> values;
    for (int64_t r = 0; r < registers; ++r) {
      std::optional<int64_t> value = EvaluateInt(reg, IntEnv{{round.get(), r}});
      if (!value) return std::nullopt;
      values.push_back(*value);
    }
    access_registers->push_back(std::move(values));
  }
  return std::min<int64_t>(registers, vector_bytes_ * 8 / touched.widest_bits);
}

int64_t Binder::VectorRunLength(const ParallelBox& box, const Separable& form, const Stmt& body,
                                const VarRef& round) const {
  const size_t last = box.chain.size() - 1;
  const int64_t registers = static_cast<int64_t>(form.q[0].size());
  if (std::find(form.guard_low.begin(), form.guard_low.end(), true) != form.guard_low.end() ||
      std::find(form.guard_high.begin(), form.guard_high.end(), true) != form.guard_high.end()) {
    return 1;
  }
  std::vector<std::vector<int64_t>> access_registers;
  std::optional<int64_t> limit = VectorRunLimit(body, registers, round, &access_registers);
  if (!limit) return 1;
  for (int64_t run = *limit; run >= 2; run /= 2) {
    if (registers % run != 0) continue;
    bool fits = StepsInRuns(form.q[last], run, 1);
    for (size_t d = 0; fits && d < last; ++d) fits = StepsInRuns(form.q[d], run, 0);
    for (size_t k = 0; fits && k < access_registers.size(); ++k) {
      // A register that steps along the run, or one that stays (a row's vector, broadcast).
      fits = StepsInRuns(access_registers[k], run, 1) || StepsInRuns(access_registers[k], run, 0);
    }
    if (fits) return run;
  }
  return 1;
}

int64_t Binder::VectorRunLength(const ParallelBox& box, const AffinePlacement& form,
                                int64_t registers, const Stmt& body, const VarRef& round) const {
  if (form.guard) return 1;
  std::vector<int64_t> offsets;
  for (const std::optional<int64_t>& offset : form.offset) {
    if (!offset) return 1;
    offsets.push_back(*offset);
  }
  std::vector<std::vector<int64_t>> access_registers;
  std::optional<int64_t> limit = VectorRunLimit(body, registers, round, &access_registers);
  if (!limit) return 1;
  const int64_t innermost = box.domain.back().extent;
  for (int64_t run = *limit; run >= 2; run /= 2) {
    // A run starts at an element e = A * t + B[r] that is a multiple of the run, inside a row
    // of the innermost dimension that the run divides, so it never crosses a row.
    if (registers % run != 0 || form.a % run != 0 || innermost % run != 0) continue;
    bool fits = StepsInRuns(offsets, run, 1);
    for (size_t r = 0; fits && r < offsets.size(); r += run) fits = offsets[r] % run == 0;
    for (size_t k = 0; fits && k < access_registers.size(); ++k) {
      // A register that steps along the run, or one that stays (a row's vector, broadcast).
      fits = StepsInRuns(access_registers[k], run, 1) || StepsInRuns(access_registers[k], run, 0);
    }
    if (fits) return run;
  }
  return 1;
}

Stmt Binder::VectorRunNest(const For& root, const ParallelBox& box, const AffinePlacement& form,
                           int64_t registers, const Stmt& body, const VarRef& round,
                           const Expr& thread, int64_t run) {
  DataType type = FlatIndexType(root);
  VarRef step = Var::Make(names_.Fresh("run"), type);
  VarRef lane = Var::Make(names_.Fresh("lane"), type);
  std::vector<std::optional<int64_t>> starts;
  for (size_t r = 0; r < form.offset.size(); r += run) starts.push_back(form.offset[r]);
  std::optional<Expr> progression = Progression(starts, step, type);
  Expr b = progression ? *progression : SelectChain(starts, step, type);
  VarRef element = Var::Make(names_.Fresh("e"), type);
  std::vector<Stmt> outer = {Let::Make(
      element,
      arith::SimplifyExpr(Op(BinaryOp::kAdd, Op(BinaryOp::kMul, Int(form.a, type), thread), b)),
      root.loc())};
  // The coordinates of the run's first element, as AffineNest has them; the innermost one
  // plus the lane inside the run.
  VarMap map;
  int64_t stride = 1;
  for (size_t d = box.chain.size(); d-- > 0;) {
    Expr position = stride > 1 ? Op(BinaryOp::kDiv, element, Int(stride, type)) : Expr(element);
    if (d > 0) position = Op(BinaryOp::kMod, position, Int(box.domain[d].extent, type));
    const For& loop = *box.chain[d];
    Expr value = Op(BinaryOp::kAdd, Int(box.domain[d].min, type), position);
    if (d + 1 == box.chain.size()) value = Op(BinaryOp::kAdd, value, lane);
    value = arith::SimplifyExpr(value);
    if (loop.var->dtype() != type) value = Cast::Make(loop.var->dtype(), value);
    if (d + 1 == box.chain.size()) {
      map[loop.var.get()] = value;
    } else {
      outer.push_back(Let::Make(loop.var, value, loop.loc()));
    }
    stride *= box.domain[d].extent;
  }
  // A register that stays along the run (a row's vector) is read at the run's start: one
  // scalar broadcast over the vector.
  PinRunConstantRegisters(round, Op(BinaryOp::kMul, AsI32(step), Int(run)), run, registers);
  std::vector<Stmt> rewritten = RewriteFastBody(body);
  Stmt inner = rewritten.size() == 1 ? rewritten[0] : Seq::Make(std::move(rewritten), root.loc());
  map[round.get()] = Op(BinaryOp::kAdd, Op(BinaryOp::kMul, AsI32(step), Int(run)), AsI32(lane));
  inner = Simplify(Substitute(inner, map));
  outer.push_back(
      For::Make(lane, Int(0, type), Int(run, type), ForKind::kVectorized, inner, root.loc()));
  return For::Make(step, Int(0, type), Int(registers / run, type), ForKind::kUnrolled,
                   Seq::Make(std::move(outer), root.loc()), root.loc());
}

Stmt Binder::VectorRunNest(const For& root, const ParallelBox& box, const Separable& form,
                           const Stmt& body, const VarRef& round, const Expr& thread, int64_t run) {
  DataType type = FlatIndexType(root);
  const size_t last = box.chain.size() - 1;
  const int64_t registers = static_cast<int64_t>(form.q[0].size());
  VarRef step = Var::Make(names_.Fresh("run"), type);
  VarRef lane = Var::Make(names_.Fresh("lane"), type);
  auto coordinate = [&](size_t d) {
    std::vector<std::optional<int64_t>> starts = RunStarts(form.q[d], run);
    std::optional<Expr> progression = Progression(starts, step, type);
    Expr value = Op(BinaryOp::kAdd, BitLinear(form.bits[d], thread, type),
                    progression ? *progression : SelectChain(starts, step, type));
    value = arith::SimplifyExpr(value);
    const For& loop = *box.chain[d];
    return loop.var->dtype() != type ? Cast::Make(loop.var->dtype(), value) : value;
  };
  std::vector<Stmt> outer;
  for (size_t d = 0; d < last; ++d) {
    outer.push_back(Let::Make(box.chain[d]->var, coordinate(d), box.chain[d]->loc()));
  }
  // Inside the run, the last coordinate and the round are the run's start plus the lane;
  // substituted rather than bound, so that the loop body stays the one store vectorize reads.
  // A register that stays along the run (a row's vector) is read at the run's start: one
  // scalar broadcast over the vector.
  PinRunConstantRegisters(round, Op(BinaryOp::kMul, AsI32(step), Int(run)), run, registers);
  std::vector<Stmt> rewritten = RewriteFastBody(body);
  Stmt inner = rewritten.size() == 1 ? rewritten[0] : Seq::Make(std::move(rewritten), root.loc());
  const For& last_loop = *box.chain[last];
  Expr lane_value =
      last_loop.var->dtype() != type ? Cast::Make(last_loop.var->dtype(), lane) : Expr(lane);
  VarMap map;
  map[last_loop.var.get()] = arith::SimplifyExpr(Op(BinaryOp::kAdd, coordinate(last), lane_value));
  map[round.get()] = Op(BinaryOp::kAdd, Op(BinaryOp::kMul, AsI32(step), Int(run)), AsI32(lane));
  inner = Simplify(Substitute(inner, map));
  outer.push_back(
      For::Make(lane, Int(0, type), Int(run, type), ForKind::kVectorized, inner, root.loc()));
  return For::Make(step, Int(0, type), Int(registers / run, type), ForKind::kUnrolled,
                   Seq::Make(std::move(outer), root.loc()), root.loc());
}

}  // namespace tile_ir::passes::thread_binding
