// The statement simplifier: a statement mutator that feeds loop, grid and let facts to the
// expression simplifier and removes the control flow it decides.
#include "passes/utils/stmt_simplifier.h"

#include <optional>
#include <utility>
#include <vector>

#include "passes/analysis/arith/effects.h"
#include "passes/analysis/arith/expr_simplifier.h"
#include "passes/analysis/arith/int_math.h"
#include "tile_ir/mutator.h"

namespace tile_ir::passes {
namespace {

using arith::IntInterval;
using arith::Wide;

bool DeclaresAnything(const Seq& seq) {
  for (const Stmt& s : seq.stmts) {
    if (As<Let>(s) != nullptr || As<Allocate>(s) != nullptr) return true;
  }
  return false;
}

// A body that replaces its loop or if must not leak a declaration into the
// enclosing block, so a bare declaration keeps a block of its own.
Stmt AsReplacement(Stmt body) {
  if (As<Let>(body) != nullptr || As<Allocate>(body) != nullptr) {
    SourceLoc loc = body->loc();
    return Seq::Make({std::move(body)}, std::move(loc));
  }
  return body;
}

class StmtSimplifier : public IRMutator {
 public:
  using IRMutator::Mutate;
  Expr Mutate(const Expr& e) override { return exprs_.Simplify(e); }

  Stmt SimplifyStmt(const Stmt& stmt) { return MutateBody(stmt); }

  Kernel MutateKernel(const Kernel& kernel) override {
    for (const VarRef& dim : kernel->dims) {
      exprs_.BindRange(dim, {0, arith::TypeMax(dim->dtype())});
    }
    bool changed = false;
    Launch launch = kernel->launch;
    for (GridAxis& axis : launch.grid) {
      Expr extent = Mutate(axis.extent);
      // The verifier requires a constant grid extent to be positive, so an expression that
      // folds to 0 or less (M % 1) stays as written: the launch evaluates it as before.
      if (std::optional<int64_t> folded = AsConstInt(extent); folded && *folded <= 0) {
        extent = axis.extent;
      }
      changed |= extent != axis.extent;
      axis.extent = extent;
      BindLoopRange(axis.var, Int(0, extent->dtype()), extent);
    }
    std::vector<ShapeRequirement> requirements = kernel->requirements;
    for (ShapeRequirement& requirement : requirements) {
      Expr condition = exprs_.Simplify(requirement.condition);
      changed |= condition != requirement.condition;
      requirement.condition = condition;
    }
    Stmt body = MutateBody(kernel->body);
    changed |= body != kernel->body;
    if (!changed) return kernel;
    return KernelNode::Make(kernel->name, kernel->dims, kernel->params, std::move(launch),
                            std::move(body), kernel->loc, std::move(requirements));
  }

 protected:
  Stmt MutateSeq(const Seq& node, const Stmt& self) override {
    bool changed = false;
    std::vector<Stmt> stmts;
    stmts.reserve(node.stmts.size());
    for (const Stmt& s : node.stmts) {
      Stmt result = Mutate(s);
      changed |= result != s;
      if (result == nullptr) continue;
      const Seq* inner = As<Seq>(result);
      if (inner != nullptr && !DeclaresAnything(*inner)) {
        stmts.insert(stmts.end(), inner->stmts.begin(), inner->stmts.end());
        changed = true;
      } else {
        stmts.push_back(std::move(result));
      }
    }
    return changed ? Seq::Make(std::move(stmts), node.loc()) : self;
  }

  Stmt MutateFor(const For& node, const Stmt& self) override {
    Expr min = Mutate(node.min);
    Expr extent = Mutate(node.extent);
    std::optional<int64_t> trip_count = AsConstInt(extent);
    if (trip_count && *trip_count <= 0) return nullptr;
    // A thread-bound loop declares a thread index, so it stays even for one thread.
    if (trip_count == 1 && node.for_kind != ForKind::kThreadBound && arith::IsMemoryFree(min)) {
      exprs_.BindValue(node.var, min);
      return AsReplacement(MutateBody(node.body));
    }
    BindLoopRange(node.var, min, extent);
    Stmt body = MutateBody(node.body);
    if (min == node.min && extent == node.extent && body == node.body) return self;
    return For::Make(node.var, std::move(min), std::move(extent), node.for_kind, std::move(body),
                     node.loc(), node.pipeline, node.thread_axis);
  }

  Stmt MutateIf(const If& node, const Stmt& self) override {
    Expr cond = Mutate(node.cond);
    if (std::optional<int64_t> decided = AsConstInt(cond)) {
      if (*decided != 0) return AsReplacement(MutateBody(node.then_body));
      return node.else_body ? AsReplacement(MutateBody(node.else_body)) : nullptr;
    }
    Stmt then_body = MutateBody(node.then_body);
    Stmt else_body = Mutate(node.else_body);
    if (cond == node.cond && then_body == node.then_body && else_body == node.else_body) {
      return self;
    }
    return If::Make(std::move(cond), std::move(then_body), std::move(else_body), node.loc());
  }

  Stmt MutateLet(const Let& node, const Stmt& self) override {
    Expr value = Mutate(node.value);
    if (As<IntImm>(value) || As<FloatImm>(value) || As<Var>(value)) {
      exprs_.BindValue(node.var, value);
    } else if (!value->dtype().is_vector() &&
               (value->dtype().is_int() || value->dtype().is_bool())) {
      exprs_.BindRange(node.var, exprs_.Bound(value));
    }
    return value == node.value ? self : Let::Make(node.var, std::move(value), node.loc());
  }

 private:
  // var takes the values [min, min + extent - 1] (nothing to record when the
  // loop may not run: the body then never sees the variable).
  void BindLoopRange(const VarRef& var, const Expr& min, const Expr& extent) {
    IntInterval min_range = exprs_.Bound(min);
    IntInterval extent_range = exprs_.Bound(extent);
    if (extent_range.max < 1) return;
    Wide last = Wide{min_range.max} + extent_range.max - 1;
    if (!arith::FitsIn(last, var->dtype())) return;
    exprs_.BindRange(var, {min_range.min, static_cast<int64_t>(last)});
  }

  arith::ExprSimplifier exprs_;
};

}  // namespace

Stmt Simplify(const Stmt& stmt) { return StmtSimplifier().SimplifyStmt(stmt); }

Kernel SimplifyKernel(const Kernel& kernel) { return StmtSimplifier().MutateKernel(kernel); }

}  // namespace tile_ir::passes
