#include "tile_ir/visitor.h"

namespace tile_ir {

void IRVisitor::Visit(const Expr& e) {
  switch (e->kind()) {
#define TILE_IR_DISPATCH(Name) \
  case ExprKind::k##Name:      \
    return Visit##Name(static_cast<const Name&>(*e));
    TILE_IR_FOR_EACH_EXPR(TILE_IR_DISPATCH)
#undef TILE_IR_DISPATCH
  }
}

void IRVisitor::Visit(const Stmt& s) {
  if (!s) return;
  switch (s->kind()) {
#define TILE_IR_DISPATCH(Name) \
  case StmtKind::k##Name:      \
    return Visit##Name(static_cast<const Name&>(*s));
    TILE_IR_FOR_EACH_STMT(TILE_IR_DISPATCH)
#undef TILE_IR_DISPATCH
  }
}

void IRVisitor::VisitKernel(const KernelNode& kernel) {
  for (const Param& p : kernel.params) {
    if (p.is_buffer()) VisitBufferDecl(p.buffer);
  }
  for (const GridAxis& axis : kernel.launch.grid) Visit(axis.extent);
  for (const ShapeRequirement& requirement : kernel.requirements) Visit(requirement.condition);
  Visit(kernel.body);
}

void IRVisitor::VisitIntImm(const IntImm&) {}
void IRVisitor::VisitFloatImm(const FloatImm&) {}
void IRVisitor::VisitVar(const Var&) {}
void IRVisitor::VisitUnary(const Unary& node) { Visit(node.a); }
void IRVisitor::VisitBinary(const Binary& node) {
  Visit(node.a);
  Visit(node.b);
}
void IRVisitor::VisitCast(const Cast& node) { Visit(node.value); }
void IRVisitor::VisitSelect(const Select& node) {
  Visit(node.cond);
  Visit(node.true_value);
  Visit(node.false_value);
}
void IRVisitor::VisitBufferLoad(const BufferLoad& node) {
  VisitBufferUse(node.buffer);
  for (const Expr& i : node.indices) Visit(i);
}
void IRVisitor::VisitCall(const Call& node) {
  for (const Expr& a : node.args) Visit(a);
}
void IRVisitor::VisitRamp(const Ramp& node) {
  Visit(node.base);
  Visit(node.stride);
}
void IRVisitor::VisitBroadcast(const Broadcast& node) { Visit(node.value); }

void IRVisitor::VisitRegion(const Region& region) {
  VisitBufferUse(region.buffer);
  for (const Range& r : region.ranges) {
    Visit(r.min);
    Visit(r.extent);
  }
}

void IRVisitor::VisitBufferDecl(const Buffer& buffer) {
  for (const Expr& e : buffer->shape) Visit(e);
  for (const Expr& e : buffer->strides) Visit(e);
}

void IRVisitor::VisitSeq(const Seq& node) {
  for (const Stmt& s : node.stmts) Visit(s);
}
void IRVisitor::VisitFor(const For& node) {
  Visit(node.min);
  Visit(node.extent);
  Visit(node.body);
}
void IRVisitor::VisitIf(const If& node) {
  Visit(node.cond);
  Visit(node.then_body);
  Visit(node.else_body);
}
void IRVisitor::VisitLet(const Let& node) { Visit(node.value); }
void IRVisitor::VisitAllocate(const Allocate& node) { VisitBufferDecl(node.buffer); }
void IRVisitor::VisitStore(const Store& node) {
  VisitBufferUse(node.buffer);
  for (const Expr& i : node.indices) Visit(i);
  Visit(node.value);
}
void IRVisitor::VisitBarrier(const Barrier&) {}
void IRVisitor::VisitEvaluate(const Evaluate& node) { Visit(node.value); }
void IRVisitor::VisitCopy(const Copy& node) {
  VisitRegion(node.src);
  VisitRegion(node.dst);
}
void IRVisitor::VisitGemm(const Gemm& node) {
  VisitRegion(node.a);
  VisitRegion(node.b);
  VisitRegion(node.c);
}
void IRVisitor::VisitFill(const Fill& node) {
  VisitRegion(node.dst);
  Visit(node.value);
}
void IRVisitor::VisitReduce(const Reduce& node) {
  VisitRegion(node.src);
  VisitRegion(node.dst);
}
void IRVisitor::VisitAtomicAdd(const AtomicAdd& node) {
  VisitRegion(node.src);
  VisitRegion(node.dst);
}
void IRVisitor::VisitCumsum(const Cumsum& node) {
  VisitRegion(node.src);
  VisitRegion(node.dst);
}

}  // namespace tile_ir
