// Statements: blocks, loops (the kernel's thread loops become thread
// indices), ifs, lets, barriers, evaluations.
#include <algorithm>
#include <functional>
#include <string>

#include "absl/strings/str_cat.h"
#include "targets/c_source/c_types.h"
#include "targets/c_source/kernel_emitter.h"
#include "tile_ir/visitor.h"

namespace tile_ir::c_source {
namespace {

class LoadFinder : public IRVisitor {
 public:
  bool found = false;

 protected:
  void VisitBufferLoad(const BufferLoad& node) override { found = true; }
};

bool ReadsMemory(const Expr& expr) {
  LoadFinder finder;
  finder.Visit(expr);
  return finder.found;
}

// The most lanes of any node of `expr`: a statement with vectors runs per lane.
class LaneCounter : public IRVisitor {
 public:
  int lanes = 1;

  using IRVisitor::Visit;
  void Visit(const Expr& e) override {
    if (e) lanes = std::max(lanes, e->dtype().lanes());
    IRVisitor::Visit(e);
  }
};

// The if an else branch consists of, printed as `else if`; null otherwise.
const If* ElseIf(const Stmt& else_body) {
  if (!else_body) return nullptr;
  if (const If* node = As<If>(else_body)) return node;
  const Seq* block = As<Seq>(else_body);
  return block != nullptr && block->stmts.size() == 1 ? As<If>(block->stmts.front()) : nullptr;
}

}  // namespace

void KernelEmitter::Line(const std::string& text) {
  out_.append(2 * indent_, ' ');
  out_ += text;
  out_ += '\n';
}

void KernelEmitter::EmitStmt(const Stmt& stmt) {
  if (!stmt || !error_.ok()) return;
  SourceLoc outer = loc_;
  if (stmt->loc().known()) loc_ = stmt->loc();
  switch (stmt->kind()) {
    case StmtKind::kSeq: EmitSeqItems(*As<Seq>(stmt)); break;
    case StmtKind::kFor: EmitFor(*As<For>(stmt)); break;
    case StmtKind::kIf: EmitIf(*As<If>(stmt)); break;
    case StmtKind::kLet: EmitLet(*As<Let>(stmt)); break;
    case StmtKind::kAllocate: EmitAllocate(*As<Allocate>(stmt)); break;
    case StmtKind::kStore: EmitStore(*As<Store>(stmt)); break;
    case StmtKind::kBarrier: Line(dialect_.Barrier(As<Barrier>(stmt)->scope)); break;
    case StmtKind::kEvaluate: EmitEvaluate(*As<Evaluate>(stmt)); break;
    default:
      Fail(absl::StrCat("tile operation '", std::string(StmtKindName(stmt->kind())),
                        "' is not thread-level; lower the module first"));
      break;
  }
  loc_ = outer;
}

void KernelEmitter::EmitSeqItems(const Seq& node) {
  for (const Stmt& each : node.stmts) {
    if (each->kind() != StmtKind::kSeq) {
      EmitStmt(each);
      continue;
    }
    // A nested block keeps its declarations to itself.
    Line("{");
    EmitBody(each);
    Line("}");
  }
}

void KernelEmitter::EmitBody(const Stmt& stmt) {
  ++indent_;
  EmitStmt(stmt);
  --indent_;
}

void KernelEmitter::EmitFor(const For& node) {
  if (node.for_kind == ForKind::kThreadBound) return EmitThreadLoop(node);
  std::string type = dialect_.ValueType(node.var->dtype().scalar());
  const std::string& var = names_.Declare(node.var.get(), node.var->name);
  CExpr min = EmitExpr(node.min);
  CExpr extent = EmitExpr(node.extent);
  std::optional<int64_t> constant_min = AsConstInt(node.min);
  std::string header;
  if (constant_min && !ReadsMemory(node.extent)) {
    // The bound is invariant: C++ may evaluate it every iteration.
    std::optional<int64_t> constant_extent = AsConstInt(node.extent);
    std::string bound;
    if (*constant_min == 0) {
      bound = extent.text;
    } else if (constant_extent) {
      bound =
          IntLiteral(dialect_, *constant_min + *constant_extent, node.var->dtype().scalar()).text;
    } else {
      bound = absl::StrCat(Operand(min, kPrecAdditive), " + ", Operand(extent, kPrecAdditive + 1));
    }
    header = absl::StrCat("for (", type, " ", var, " = ", min.text, "; ", var, " < ", bound, "; ++",
                          var, ") {");
  } else {
    // Bounds that read memory the body may write are evaluated once, on entry.
    std::string end = names_.Fresh(var + "_end");
    header =
        absl::StrCat("for (", type, " ", var, " = ", min.text, ", ", end, " = ", var, " + ",
                     Operand(extent, kPrecAdditive + 1), "; ", var, " < ", end, "; ++", var, ") {");
  }
  if (node.for_kind == ForKind::kUnrolled) Line("#pragma unroll");
  Line(header);
  EmitBody(node.body);
  Line("}");
}

void KernelEmitter::EmitThreadLoop(const For& node) {
  int axis = node.thread_axis == ThreadAxis::kZ ? 2 : node.thread_axis == ThreadAxis::kY ? 1 : 0;
  if (used_vars_.contains(node.var.get())) {
    Line(absl::StrCat("const ", dialect_.ValueType(node.var->dtype().scalar()), " ",
                      names_.Declare(node.var.get(), node.var->name), " = ",
                      dialect_.ThreadIndex(axis), ";"));
  }
  // The loop is at the kernel's top (CheckThreadLevel), so its body
  // follows inline: every thread runs it once.
  EmitStmt(node.body);
}

void KernelEmitter::EmitIf(const If& node) {
  CExpr cond = EmitExpr(node.cond);
  Line(absl::StrCat("if (", cond.text, ") {"));
  EmitBody(node.then_body);
  const If* current = &node;
  while (const If* next = ElseIf(current->else_body)) {
    SourceLoc outer = loc_;
    if (next->loc().known()) loc_ = next->loc();
    CExpr next_cond = EmitExpr(next->cond);
    Line(absl::StrCat("} else if (", next_cond.text, ") {"));
    EmitBody(next->then_body);
    loc_ = outer;
    current = next;
  }
  if (current->else_body) {
    Line("} else {");
    EmitBody(current->else_body);
  }
  Line("}");
}

void KernelEmitter::EmitLet(const Let& node) {
  DataType type = node.var->dtype();
  divisibility_.AddLet(node);
  if (!type.is_vector()) {
    CExpr value = EmitExpr(node.value);
    Line(absl::StrCat("const ", dialect_.ValueType(type.scalar()), " ",
                      names_.Declare(node.var.get(), node.var->name), " = ", value.text, ";"));
    return;
  }
  // A vector lives in an array, one element per lane.
  std::string name = names_.Declare(node.var.get(), node.var->name);
  Line(absl::StrCat(dialect_.ValueType(type.scalar()), " ", name, "[", type.lanes(), "];"));
  PreloadVectors(node.value);
  ForEachLane(type.lanes(), [&] {
    CExpr value = EmitExpr(node.value);
    Line(absl::StrCat(name, "[", lane_, "] = ", value.text, ";"));
  });
  vector_lets_.insert(node.var.get());
}

void KernelEmitter::EmitEvaluate(const Evaluate& node) {
  LaneCounter counter;
  counter.Visit(node.value);
  auto emit = [&] {
    CExpr value = EmitExpr(node.value);
    Line(node.value->kind() == ExprKind::kCall ? value.text + ";"
                                               : absl::StrCat("(void)(", value.text, ");"));
  };
  if (counter.lanes > 1) {
    ForEachLane(counter.lanes, emit);
  } else {
    emit();
  }
}

void KernelEmitter::ForEachLane(int lanes, const std::function<void()>& emit_lane) {
  std::string outer = lane_;
  // Lane loops never nest, so they share one variable name.
  if (lane_name_.empty()) lane_name_ = names_.Fresh("lane");
  lane_ = lane_name_;
  Line("#pragma unroll");
  Line(absl::StrCat("for (int ", lane_, " = 0; ", lane_, " < ", lanes, "; ++", lane_, ") {"));
  ++indent_;
  emit_lane();
  --indent_;
  Line("}");
  lane_ = outer;
}

}  // namespace tile_ir::c_source
