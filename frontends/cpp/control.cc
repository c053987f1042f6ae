#include "frontends/cpp/control.h"

#include "frontends/cpp/builder.h"

namespace tile_ir::dsl {
namespace {

// Loop variables take the type of the extent (i64 extents give i64 loops).
VarRef LoopVar(const std::string& hint, const E& extent) {
  DataType dtype = extent.weak() || !extent.dtype().is_int() ? kI32 : extent.dtype();
  return Var::Make(KernelBuilder::Active().FreshName(hint), dtype);
}

void Loop(ForKind kind, const char* hint, E min, E extent, PipelineInfo pipeline,
          const Body1& body, const source_location& loc) {
  KernelBuilder& builder = KernelBuilder::Active();
  VarRef v = LoopVar(hint, extent);
  SourceLoc where = ToSourceLoc(loc);
  Stmt stmt = builder.Block([&] { body(E(v)); }, where);
  builder.Append(For::Make(v, typed(min, v->dtype()), typed(extent, v->dtype()), kind,
                           std::move(stmt), where, std::move(pipeline)));
}

}  // namespace

void parallel(E extent, const Body1& body, source_location loc) {
  Loop(ForKind::kParallel, "i", 0, extent, {}, body, loc);
}

void parallel(E extent0, E extent1, const Body2& body, source_location loc) {
  Loop(ForKind::kParallel, "i", 0, extent0, {},
       [&](E i) { Loop(ForKind::kParallel, "j", 0, extent1, {}, [&](E j) { body(i, j); }, loc); },
       loc);
}

void parallel(E extent0, E extent1, E extent2, const Body3& body, source_location loc) {
  Loop(ForKind::kParallel, "i", 0, extent0, {},
       [&](E i) {
         Loop(ForKind::kParallel, "j", 0, extent1, {},
              [&](E j) {
                Loop(ForKind::kParallel, "k", 0, extent2, {}, [&](E k) { body(i, j, k); }, loc);
              },
              loc);
       },
       loc);
}

void serial(E extent, const Body1& body, source_location loc) {
  Loop(ForKind::kSerial, "s", 0, extent, {}, body, loc);
}

void serial_range(E min, E extent, const Body1& body, source_location loc) {
  Loop(ForKind::kSerial, "s", min, extent, {}, body, loc);
}

void unrolled(E extent, const Body1& body, source_location loc) {
  Loop(ForKind::kUnrolled, "u", 0, extent, {}, body, loc);
}

void vectorized(E extent, const Body1& body, source_location loc) {
  Loop(ForKind::kVectorized, "v", 0, extent, {}, body, loc);
}

void pipelined(E extent, int num_stages, const Body1& body, source_location loc) {
  pipelined(extent, PipelineOptions{num_stages, {}, {}}, body, loc);
}

void pipelined(E extent, PipelineOptions options, const Body1& body, source_location loc) {
  PipelineInfo info{options.num_stages, std::move(options.order), std::move(options.stage)};
  Loop(ForKind::kPipelined, "k", 0, extent, std::move(info), body, loc);
}

void if_then(E cond, const std::function<void()>& then_body, source_location loc) {
  KernelBuilder& builder = KernelBuilder::Active();
  SourceLoc where = ToSourceLoc(loc);
  Stmt then_stmt = builder.Block(then_body, where);
  builder.Append(If::Make(typed(cond, kBool), std::move(then_stmt), nullptr, where));
}

void if_then_else(E cond, const std::function<void()>& then_body,
                  const std::function<void()>& else_body, source_location loc) {
  KernelBuilder& builder = KernelBuilder::Active();
  SourceLoc where = ToSourceLoc(loc);
  Stmt then_stmt = builder.Block(then_body, where);
  Stmt else_stmt = builder.Block(else_body, where);
  builder.Append(If::Make(typed(cond, kBool), std::move(then_stmt), std::move(else_stmt), where));
}

E let(const std::string& name, E value, source_location loc) {
  KernelBuilder& builder = KernelBuilder::Active();
  VarRef v = Var::Make(builder.FreshName(name), value.dtype());
  builder.Append(Let::Make(v, value.expr(), ToSourceLoc(loc)));
  return E(v);
}

void barrier(source_location loc) {
  KernelBuilder::Active().Append(Barrier::Make(BarrierScope::kBlock, ToSourceLoc(loc)));
}

void evaluate(E call, source_location loc) {
  KernelBuilder::Active().Append(Evaluate::Make(call.expr(), ToSourceLoc(loc)));
}

}  // namespace tile_ir::dsl
