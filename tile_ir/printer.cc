// The canonical printer: modules, kernels and statements (docs/TEXT_FORMAT.md).
#include "tile_ir/printer.h"

#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tile_ir/buffer.h"
#include "tile_ir/expr_printer.h"
#include "tile_ir/print_names.h"
#include "tile_ir/structural_equal.h"
#include "tile_ir/text_syntax.h"
#include "tile_ir/version.h"

namespace tile_ir {
namespace {

const char* BoolText(bool value) { return value ? "true" : "false"; }

bool IsFullRegion(const Region& region) {
  const Buffer& buffer = region.buffer;
  if (!buffer || region.ranges.size() != buffer->shape.size()) return false;
  for (size_t i = 0; i < region.ranges.size(); ++i) {
    const Range& range = region.ranges[i];
    // A bare name reads back as Region::Full, whose mins have the shape's type.
    if (AsConstInt(range.min) != 0 || !buffer->shape[i] ||
        range.min->dtype() != buffer->shape[i]->dtype() ||
        !StructuralEqual(range.extent, buffer->shape[i])) {
      return false;
    }
  }
  return true;
}

class TextPrinter {
 public:
  explicit TextPrinter(const PrintOptions& options) : options_(options), exprs_(&names_, &out_) {}

  std::string Take() { return std::move(out_); }

  void PrintModule(const Module& module);
  void PrintKernel(const KernelNode& kernel);
  void PrintStmt(const Stmt& stmt, int indent);
  void PrintRegion(const Region& region);

 private:
  void Indent(int indent) { out_.append(2 * indent, ' '); }
  // " loc(...)" before a statement's ';' or '{' when locations are printed.
  void PrintLoc(const SourceLoc& loc);
  void EndSimpleStmt(const StmtNode& stmt);
  // "{", the statements of `body` one level deeper, and "}" at `indent`.
  void PrintBlock(const Stmt& body, int indent);
  void PrintBlockContents(const Stmt& body, int indent);
  void PrintExprList(const std::vector<Expr>& exprs) { exprs_.PrintList(exprs); }
  void PrintIntList(const std::vector<int64_t>& values);
  // "DTYPE[SHAPE] strides[...]" of a buffer declaration.
  void PrintBufferType(const BufferNode& buffer);
  void PrintLayout(const Layout& layout);
  // Names every variable and buffer the kernel's signature declares, in the
  // order the parser declares them, before any of them is printed: a shape may
  // use a scalar parameter that comes after it.
  void DeclareSignature(const KernelNode& kernel);
  void DeclareVar(const VarRef& var) {
    if (var) names_.Declare(var.get(), var->name);
  }
  // The name of a variable, which may be missing in IR under construction.
  void AppendVar(const VarRef& var);

  void PrintFor(const For& node, int indent);
  void PrintIf(const If& node, int indent);
  void PrintAllocate(const Allocate& node);
  void PrintTileOp(const StmtNode& stmt);
  void PrintOtherStmt(const StmtNode& stmt);

  const PrintOptions& options_;
  std::string out_;
  PrintNames names_;
  ExprPrinter exprs_;
};

void TextPrinter::PrintModule(const Module& module) {
  // The oldest version that has what the module uses, not module.ir_version: a module read as
  // version 1 may have gained '^' in a pass, and one that needs nothing new stays readable by
  // older toolkits.
  absl::StrAppend(&out_, "ir_version ", RequiredIrVersion(module), ";\nproducer ");
  AppendQuoted(module.producer, &out_);
  out_.push_back(' ');
  AppendQuoted(module.producer_version, &out_);
  out_.append(";\n");
  for (const Kernel& kernel : module.kernels) {
    out_.push_back('\n');
    if (kernel) PrintKernel(*kernel);
  }
}

void TextPrinter::DeclareSignature(const KernelNode& kernel) {
  for (const VarRef& dim : kernel.dims) DeclareVar(dim);
  for (const Param& param : kernel.params) {
    if (param.is_buffer()) {
      names_.Declare(param.buffer.get(), param.buffer->name);
    } else {
      DeclareVar(param.scalar);
    }
  }
  for (const GridAxis& axis : kernel.launch.grid) DeclareVar(axis.var);
}

void TextPrinter::AppendVar(const VarRef& var) {
  if (var) {
    names_.Append(var.get(), var->name, &out_);
  } else {
    out_.append("<null>");
  }
}

void TextPrinter::PrintKernel(const KernelNode& kernel) {
  // Names are unique per kernel, not per module.
  names_ = PrintNames();
  DeclareSignature(kernel);
  out_.append("kernel ");
  out_.append(IsKernelName(kernel.name) ? kernel.name : SanitizeIdentifier(kernel.name));
  if (!kernel.dims.empty()) {
    out_.push_back('<');
    for (size_t i = 0; i < kernel.dims.size(); ++i) {
      if (i > 0) out_.append(", ");
      const VarRef& dim = kernel.dims[i];
      AppendVar(dim);
      absl::StrAppend(&out_, ": ", dim ? dim->dtype().ToString() : "<null>");
    }
    out_.push_back('>');
  }
  out_.push_back('(');
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    if (i > 0) out_.append(", ");
    const Param& param = kernel.params[i];
    if (param.is_buffer()) {
      names_.Append(param.buffer.get(), param.buffer->name, &out_);
      out_.append(": ");
      PrintBufferType(*param.buffer);
    } else {
      AppendVar(param.scalar);
      absl::StrAppend(&out_, ": ", param.scalar ? param.scalar->dtype().ToString() : "<null>");
    }
  }
  out_.append(")\n    grid(");
  for (size_t i = 0; i < kernel.launch.grid.size(); ++i) {
    if (i > 0) out_.append(", ");
    const GridAxis& axis = kernel.launch.grid[i];
    AppendVar(axis.var);
    out_.append(": ");
    exprs_.Print(axis.extent);
  }
  out_.append(") threads");
  PrintIntList(kernel.launch.threads);
  if (!kernel.launch.cluster.empty()) {
    out_.append(" cluster");
    PrintIntList(kernel.launch.cluster);
  }
  if (const std::optional<BlockSwizzle>& swizzle = kernel.launch.swizzle) {
    absl::StrAppend(&out_, " swizzle(panel=", swizzle->panel_size, ", order=");
    out_.append(SwizzleOrderName(swizzle->order));
    out_.push_back(')');
  }
  PrintLoc(kernel.loc);
  out_.append(" {\n");
  for (const ShapeRequirement& requirement : kernel.requirements) {
    Indent(1);
    out_.append("require ");
    exprs_.Print(requirement.condition);
    PrintLoc(requirement.loc);
    out_.append(";\n");
  }
  PrintBlockContents(kernel.body, 1);
  out_.append("}\n");
}

void TextPrinter::PrintIntList(const std::vector<int64_t>& values) {
  out_.push_back('(');
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out_.append(", ");
    absl::StrAppend(&out_, values[i]);
  }
  out_.push_back(')');
}

void TextPrinter::PrintLoc(const SourceLoc& loc) {
  if (!options_.print_locs || !loc.known()) return;
  out_.append(" loc(");
  AppendQuoted(loc.file, &out_);
  absl::StrAppend(&out_, ":", loc.line, ":", loc.col, ")");
}

void TextPrinter::EndSimpleStmt(const StmtNode& stmt) {
  PrintLoc(stmt.loc());
  out_.append(";\n");
}

void TextPrinter::PrintBlock(const Stmt& body, int indent) {
  out_.append("{\n");
  PrintBlockContents(body, indent + 1);
  Indent(indent);
  out_.push_back('}');
}

void TextPrinter::PrintBlockContents(const Stmt& body, int indent) {
  if (!body) return;
  if (const auto* seq = As<Seq>(body)) {
    for (const Stmt& stmt : seq->stmts) PrintStmt(stmt, indent);
  } else {
    PrintStmt(body, indent);
  }
}

void TextPrinter::PrintBufferType(const BufferNode& buffer) {
  absl::StrAppend(&out_, buffer.dtype.ToString(), "[");
  PrintExprList(buffer.shape);
  out_.push_back(']');
  if (!buffer.strides.empty()) {
    out_.append(" strides[");
    PrintExprList(buffer.strides);
    out_.push_back(']');
  }
}

void TextPrinter::PrintLayout(const Layout& layout) {
  // Layout inputs are a namespace of their own, and the outputs see only them.
  PrintNames inputs;
  ExprPrinter outputs(&inputs, &out_);
  out_.append(" layout((");
  for (size_t i = 0; i < layout.inputs.size(); ++i) {
    if (i > 0) out_.append(", ");
    const VarRef& input = layout.inputs[i];
    if (input) {
      inputs.Declare(input.get(), input->name);
      inputs.Append(input.get(), input->name, &out_);
    } else {
      out_.append("<null>");
    }
  }
  out_.append(")");
  if (layout.replica) {
    inputs.Declare(layout.replica.get(), layout.replica->name);
    out_.append(" replicate(");
    inputs.Append(layout.replica.get(), layout.replica->name, &out_);
    absl::StrAppend(&out_, ": ", layout.replicate, ")");
  }
  out_.append(" -> (");
  outputs.PrintList(layout.outputs);
  out_.append("))");
}

void TextPrinter::PrintRegion(const Region& region) {
  if (!region.buffer) {
    out_.append("<null>");
    return;
  }
  names_.Append(region.buffer.get(), region.buffer->name, &out_);
  if (IsFullRegion(region)) return;
  out_.push_back('[');
  for (size_t i = 0; i < region.ranges.size(); ++i) {
    if (i > 0) out_.append(", ");
    exprs_.Print(region.ranges[i].min);
    out_.append(" +: ");
    exprs_.Print(region.ranges[i].extent);
  }
  out_.push_back(']');
}

void TextPrinter::PrintStmt(const Stmt& stmt, int indent) {
  Indent(indent);
  if (!stmt) {
    out_.append("<null>;\n");
    return;
  }
  switch (stmt->kind()) {
    case StmtKind::kSeq:
      PrintBlock(stmt, indent);
      out_.push_back('\n');
      return;
    case StmtKind::kFor:
      PrintFor(static_cast<const For&>(*stmt), indent);
      return;
    case StmtKind::kIf:
      PrintIf(static_cast<const If&>(*stmt), indent);
      return;
    case StmtKind::kAllocate:
      PrintAllocate(static_cast<const Allocate&>(*stmt));
      return;
    case StmtKind::kCopy:
    case StmtKind::kGemm:
    case StmtKind::kFill:
    case StmtKind::kReduce:
    case StmtKind::kAtomicAdd:
    case StmtKind::kCumsum:
      PrintTileOp(*stmt);
      return;
    case StmtKind::kLet:
    case StmtKind::kStore:
    case StmtKind::kBarrier:
    case StmtKind::kEvaluate:
      PrintOtherStmt(*stmt);
      return;
  }
}

void TextPrinter::PrintFor(const For& node, int indent) {
  out_.append("for ");
  DeclareVar(node.var);
  AppendVar(node.var);
  if (node.var && node.var->dtype() != kI32) {
    absl::StrAppend(&out_, ": ", node.var->dtype().ToString());
  }
  out_.append(" in ");
  exprs_.Print(node.min);
  out_.append(" +: ");
  exprs_.Print(node.extent);
  out_.push_back(' ');
  out_.append(ForKindName(node.for_kind));
  if (node.for_kind == ForKind::kThreadBound) {
    out_.push_back('(');
    out_.append(ThreadAxisName(node.thread_axis));
    out_.push_back(')');
  } else if (node.for_kind == ForKind::kPipelined) {
    const PipelineInfo& pipeline = node.pipeline;
    absl::StrAppend(&out_, "(num_stages=", pipeline.num_stages);
    if (!pipeline.order.empty() || !pipeline.stage.empty()) {
      absl::StrAppend(&out_, ", order=[", absl::StrJoin(pipeline.order, ", "), "], stage=[",
                      absl::StrJoin(pipeline.stage, ", "), "]");
    }
    out_.push_back(')');
  }
  PrintLoc(node.loc());
  out_.push_back(' ');
  PrintBlock(node.body, indent);
  out_.push_back('\n');
}

void TextPrinter::PrintIf(const If& node, int indent) {
  out_.append("if (");
  exprs_.Print(node.cond);
  out_.push_back(')');
  PrintLoc(node.loc());
  out_.push_back(' ');
  PrintBlock(node.then_body, indent);
  if (node.else_body) {
    out_.append(" else ");
    PrintBlock(node.else_body, indent);
  }
  out_.push_back('\n');
}

void TextPrinter::PrintAllocate(const Allocate& node) {
  out_.append("alloc ");
  if (!node.buffer) {
    out_.append("<null>");
    EndSimpleStmt(node);
    return;
  }
  const BufferNode& buffer = *node.buffer;
  names_.Declare(&buffer, buffer.name);
  names_.Append(&buffer, buffer.name, &out_);
  out_.append(": ");
  out_.append(MemoryScopeName(buffer.scope));
  out_.push_back(' ');
  PrintBufferType(buffer);
  if (buffer.layout) PrintLayout(*buffer.layout);
  if (node.shared_offset) absl::StrAppend(&out_, " offset(", *node.shared_offset, ")");
  EndSimpleStmt(node);
}

void TextPrinter::PrintTileOp(const StmtNode& stmt) {
  switch (stmt.kind()) {
    case StmtKind::kCopy: {
      const auto& copy = static_cast<const Copy&>(stmt);
      out_.append("copy ");
      PrintRegion(copy.src);
      out_.append(" -> ");
      PrintRegion(copy.dst);
      break;
    }
    case StmtKind::kGemm: {
      const auto& gemm = static_cast<const Gemm&>(stmt);
      out_.append("gemm ");
      PrintRegion(gemm.a);
      out_.append(", ");
      PrintRegion(gemm.b);
      out_.append(" -> ");
      PrintRegion(gemm.c);
      absl::StrAppend(&out_, " {transpose_a=", BoolText(gemm.transpose_a),
                      ", transpose_b=", BoolText(gemm.transpose_b), ", policy=");
      out_.append(WarpPolicyName(gemm.policy));
      absl::StrAppend(&out_, ", clear_accum=", BoolText(gemm.clear_accum), "}");
      break;
    }
    case StmtKind::kFill: {
      const auto& fill = static_cast<const Fill&>(stmt);
      out_.append("fill ");
      PrintRegion(fill.dst);
      out_.append(" = ");
      exprs_.Print(fill.value);
      break;
    }
    case StmtKind::kReduce: {
      const auto& reduce = static_cast<const Reduce&>(stmt);
      out_.append("reduce ");
      out_.append(ReduceKindName(reduce.reduce_kind));
      out_.push_back(' ');
      PrintRegion(reduce.src);
      out_.append(" -> ");
      PrintRegion(reduce.dst);
      absl::StrAppend(&out_, " {dim=", reduce.dim, ", clear=", BoolText(reduce.clear), "}");
      break;
    }
    case StmtKind::kAtomicAdd: {
      const auto& atomic_add = static_cast<const AtomicAdd&>(stmt);
      out_.append("atomic_add ");
      PrintRegion(atomic_add.src);
      out_.append(" -> ");
      PrintRegion(atomic_add.dst);
      break;
    }
    case StmtKind::kCumsum: {
      const auto& cumsum = static_cast<const Cumsum&>(stmt);
      out_.append("cumsum ");
      PrintRegion(cumsum.src);
      out_.append(" -> ");
      PrintRegion(cumsum.dst);
      absl::StrAppend(&out_, " {dim=", cumsum.dim, ", reverse=", BoolText(cumsum.reverse), "}");
      break;
    }
    default:
      break;
  }
  EndSimpleStmt(stmt);
}

void TextPrinter::PrintOtherStmt(const StmtNode& stmt) {
  switch (stmt.kind()) {
    case StmtKind::kLet: {
      const auto& let = static_cast<const Let&>(stmt);
      out_.append("let ");
      DeclareVar(let.var);
      AppendVar(let.var);
      absl::StrAppend(&out_, ": ", let.var ? let.var->dtype().ToString() : "<null>", " = ");
      exprs_.Print(let.value);
      break;
    }
    case StmtKind::kStore: {
      const auto& store = static_cast<const Store&>(stmt);
      if (store.buffer) {
        names_.Append(store.buffer.get(), store.buffer->name, &out_);
      } else {
        out_.append("<null>");
      }
      out_.push_back('[');
      PrintExprList(store.indices);
      out_.append("] = ");
      exprs_.Print(store.value);
      break;
    }
    case StmtKind::kBarrier:
      out_.append("barrier(");
      out_.append(BarrierScopeName(static_cast<const Barrier&>(stmt).scope));
      out_.push_back(')');
      break;
    case StmtKind::kEvaluate:
      out_.append("eval ");
      exprs_.Print(static_cast<const Evaluate&>(stmt).value);
      break;
    default:
      break;
  }
  EndSimpleStmt(stmt);
}

}  // namespace

std::string Print(const Module& module, const PrintOptions& options) {
  TextPrinter printer(options);
  printer.PrintModule(module);
  return printer.Take();
}

std::string Print(const KernelNode& kernel, const PrintOptions& options) {
  TextPrinter printer(options);
  printer.PrintKernel(kernel);
  return printer.Take();
}

std::string Print(const Stmt& stmt, int indent, const PrintOptions& options) {
  TextPrinter printer(options);
  printer.PrintStmt(stmt, indent);
  return printer.Take();
}

std::string Print(const Expr& expr) {
  std::string out;
  PrintNames names;
  ExprPrinter(&names, &out).Print(expr);
  return out;
}

std::string Print(const Region& region) {
  PrintOptions options;
  TextPrinter printer(options);
  printer.PrintRegion(region);
  return printer.Take();
}

}  // namespace tile_ir
