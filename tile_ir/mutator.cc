#include "tile_ir/mutator.h"

namespace tile_ir {

Expr IRMutator::Mutate(const Expr& e) {
  switch (e->kind()) {
#define TILE_IR_DISPATCH(Name) \
  case ExprKind::k##Name:      \
    return Mutate##Name(static_cast<const Name&>(*e), e);
    TILE_IR_FOR_EACH_EXPR(TILE_IR_DISPATCH)
#undef TILE_IR_DISPATCH
  }
  return e;
}

Stmt IRMutator::Mutate(const Stmt& s) {
  if (!s) return s;
  switch (s->kind()) {
#define TILE_IR_DISPATCH(Name) \
  case StmtKind::k##Name:      \
    return Mutate##Name(static_cast<const Name&>(*s), s);
    TILE_IR_FOR_EACH_STMT(TILE_IR_DISPATCH)
#undef TILE_IR_DISPATCH
  }
  return s;
}

Kernel IRMutator::MutateKernel(const Kernel& kernel) {
  bool changed = false;
  Launch launch = kernel->launch;
  for (GridAxis& axis : launch.grid) {
    Expr extent = Mutate(axis.extent);
    changed |= extent != axis.extent;
    axis.extent = extent;
  }
  std::vector<ShapeRequirement> requirements = kernel->requirements;
  for (ShapeRequirement& requirement : requirements) {
    Expr condition = Mutate(requirement.condition);
    changed |= condition != requirement.condition;
    requirement.condition = condition;
  }
  Stmt body = MutateBody(kernel->body);
  changed |= body != kernel->body;
  if (!changed) return kernel;
  return KernelNode::Make(kernel->name, kernel->dims, kernel->params, std::move(launch),
                          std::move(body), kernel->loc, std::move(requirements));
}

Stmt IRMutator::MutateBody(const Stmt& s) {
  Stmt result = Mutate(s);
  return result ? result : Seq::Make({}, s ? s->loc() : SourceLoc{});
}

std::vector<Expr> IRMutator::MutateExprs(const std::vector<Expr>& exprs, bool* changed) {
  std::vector<Expr> result;
  result.reserve(exprs.size());
  for (const Expr& e : exprs) {
    result.push_back(Mutate(e));
    if (result.back() != e) *changed = true;
  }
  return result;
}

Region IRMutator::MutateRegion(const Region& region) {
  Region result{MutateBuffer(region.buffer), {}};
  for (const Range& r : region.ranges) result.ranges.push_back({Mutate(r.min), Mutate(r.extent)});
  return result;
}

bool SameRegion(const Region& a, const Region& b) {
  if (a.buffer != b.buffer || a.ranges.size() != b.ranges.size()) return false;
  for (size_t i = 0; i < a.ranges.size(); ++i) {
    if (a.ranges[i].min != b.ranges[i].min || a.ranges[i].extent != b.ranges[i].extent) {
      return false;
    }
  }
  return true;
}

Expr IRMutator::MutateIntImm(const IntImm&, const Expr& self) { return self; }
Expr IRMutator::MutateFloatImm(const FloatImm&, const Expr& self) { return self; }
Expr IRMutator::MutateVar(const Var&, const Expr& self) { return self; }

Expr IRMutator::MutateUnary(const Unary& node, const Expr& self) {
  Expr a = Mutate(node.a);
  return a == node.a ? self : Unary::Make(node.op, std::move(a));
}

Expr IRMutator::MutateBinary(const Binary& node, const Expr& self) {
  Expr a = Mutate(node.a);
  Expr b = Mutate(node.b);
  return a == node.a && b == node.b ? self : Binary::Make(node.op, std::move(a), std::move(b));
}

Expr IRMutator::MutateCast(const Cast& node, const Expr& self) {
  Expr value = Mutate(node.value);
  return value == node.value ? self : Cast::Make(node.dtype(), std::move(value));
}

Expr IRMutator::MutateSelect(const Select& node, const Expr& self) {
  Expr c = Mutate(node.cond);
  Expr t = Mutate(node.true_value);
  Expr f = Mutate(node.false_value);
  if (c == node.cond && t == node.true_value && f == node.false_value) return self;
  return Select::Make(std::move(c), std::move(t), std::move(f));
}

Expr IRMutator::MutateBufferLoad(const BufferLoad& node, const Expr& self) {
  bool changed = false;
  Buffer buffer = MutateBuffer(node.buffer);
  std::vector<Expr> indices = MutateExprs(node.indices, &changed);
  if (!changed && buffer == node.buffer) return self;
  return BufferLoad::Make(std::move(buffer), std::move(indices));
}

Expr IRMutator::MutateCall(const Call& node, const Expr& self) {
  bool changed = false;
  std::vector<Expr> args = MutateExprs(node.args, &changed);
  return changed ? Call::Make(node.dtype(), node.name, std::move(args)) : self;
}

Expr IRMutator::MutateRamp(const Ramp& node, const Expr& self) {
  Expr base = Mutate(node.base);
  Expr stride = Mutate(node.stride);
  if (base == node.base && stride == node.stride) return self;
  return Ramp::Make(std::move(base), std::move(stride), node.lanes);
}

Expr IRMutator::MutateBroadcast(const Broadcast& node, const Expr& self) {
  Expr value = Mutate(node.value);
  return value == node.value ? self : Broadcast::Make(std::move(value), node.lanes);
}

Stmt IRMutator::MutateSeq(const Seq& node, const Stmt& self) {
  bool changed = false;
  std::vector<Stmt> stmts;
  stmts.reserve(node.stmts.size());
  for (const Stmt& s : node.stmts) {
    Stmt result = Mutate(s);
    if (result != s) changed = true;
    if (result) stmts.push_back(std::move(result));
  }
  return changed ? Seq::Make(std::move(stmts), node.loc()) : self;
}

Stmt IRMutator::MutateFor(const For& node, const Stmt& self) {
  Expr min = Mutate(node.min);
  Expr extent = Mutate(node.extent);
  Stmt body = MutateBody(node.body);
  if (min == node.min && extent == node.extent && body == node.body) return self;
  return For::Make(node.var, std::move(min), std::move(extent), node.for_kind, std::move(body),
                   node.loc(), node.pipeline, node.thread_axis);
}

Stmt IRMutator::MutateIf(const If& node, const Stmt& self) {
  Expr cond = Mutate(node.cond);
  Stmt then_body = MutateBody(node.then_body);
  Stmt else_body = Mutate(node.else_body);
  if (cond == node.cond && then_body == node.then_body && else_body == node.else_body) {
    return self;
  }
  return If::Make(std::move(cond), std::move(then_body), std::move(else_body), node.loc());
}

Stmt IRMutator::MutateLet(const Let& node, const Stmt& self) {
  Expr value = Mutate(node.value);
  return value == node.value ? self : Let::Make(node.var, std::move(value), node.loc());
}

Stmt IRMutator::MutateAllocate(const Allocate& node, const Stmt& self) {
  Buffer buffer = MutateBuffer(node.buffer);
  return buffer == node.buffer ? self
                               : Allocate::Make(std::move(buffer), node.loc(), node.shared_offset);
}

Stmt IRMutator::MutateStore(const Store& node, const Stmt& self) {
  bool changed = false;
  Buffer buffer = MutateBuffer(node.buffer);
  std::vector<Expr> indices = MutateExprs(node.indices, &changed);
  Expr value = Mutate(node.value);
  if (!changed && buffer == node.buffer && value == node.value) return self;
  return Store::Make(std::move(buffer), std::move(indices), std::move(value), node.loc());
}

Stmt IRMutator::MutateBarrier(const Barrier&, const Stmt& self) { return self; }

Stmt IRMutator::MutateEvaluate(const Evaluate& node, const Stmt& self) {
  Expr value = Mutate(node.value);
  return value == node.value ? self : Evaluate::Make(std::move(value), node.loc());
}

Stmt IRMutator::MutateCopy(const Copy& node, const Stmt& self) {
  Region src = MutateRegion(node.src);
  Region dst = MutateRegion(node.dst);
  if (SameRegion(src, node.src) && SameRegion(dst, node.dst)) return self;
  return Copy::Make(std::move(src), std::move(dst), node.loc());
}

Stmt IRMutator::MutateGemm(const Gemm& node, const Stmt& self) {
  Region a = MutateRegion(node.a);
  Region b = MutateRegion(node.b);
  Region c = MutateRegion(node.c);
  if (SameRegion(a, node.a) && SameRegion(b, node.b) && SameRegion(c, node.c)) return self;
  return Gemm::Make(std::move(a), std::move(b), std::move(c), node.transpose_a, node.transpose_b,
                    node.policy, node.clear_accum, node.loc());
}

Stmt IRMutator::MutateFill(const Fill& node, const Stmt& self) {
  Region dst = MutateRegion(node.dst);
  Expr value = Mutate(node.value);
  if (SameRegion(dst, node.dst) && value == node.value) return self;
  return Fill::Make(std::move(dst), std::move(value), node.loc());
}

Stmt IRMutator::MutateReduce(const Reduce& node, const Stmt& self) {
  Region src = MutateRegion(node.src);
  Region dst = MutateRegion(node.dst);
  if (SameRegion(src, node.src) && SameRegion(dst, node.dst)) return self;
  return Reduce::Make(node.reduce_kind, std::move(src), std::move(dst), node.dim, node.clear,
                      node.loc());
}

Stmt IRMutator::MutateAtomicAdd(const AtomicAdd& node, const Stmt& self) {
  Region src = MutateRegion(node.src);
  Region dst = MutateRegion(node.dst);
  if (SameRegion(src, node.src) && SameRegion(dst, node.dst)) return self;
  return AtomicAdd::Make(std::move(src), std::move(dst), node.loc());
}

Stmt IRMutator::MutateCumsum(const Cumsum& node, const Stmt& self) {
  Region src = MutateRegion(node.src);
  Region dst = MutateRegion(node.dst);
  if (SameRegion(src, node.src) && SameRegion(dst, node.dst)) return self;
  return Cumsum::Make(std::move(src), std::move(dst), node.dim, node.reverse, node.loc());
}

}  // namespace tile_ir
