// Writing: the in-memory IR to tile_ir.v1 messages. Reading is in proto_read.cc.
#include "tile_ir/proto_convert.h"

#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "tile_ir/proto_enums.h"
#include "tile_ir/text_syntax.h"
#include "tile_ir/version.h"

namespace tile_ir {
namespace {

// The names written for a kernel's variables and buffers: valid identifiers, unique in the
// kernel (or, for layout inputs, in the layout), so that what is written reads back to the
// same bindings even when the IR holds two objects of one name.
class WrittenNames {
 public:
  std::string Declare(const void* object, std::string_view base) {
    std::string name = IsValidIdentifier(base) ? std::string(base) : SanitizeIdentifier(base);
    if (taken_.contains(name)) {
      int suffix = 1;
      while (taken_.contains(absl::StrCat(name, "_", suffix))) ++suffix;
      name = absl::StrCat(name, "_", suffix);
    }
    taken_.insert(name);
    names_[object] = name;
    return name;
  }

  // A use of an object never declared keeps its own name, and reading reports it.
  std::string Use(const void* object, std::string_view base) const {
    auto it = names_.find(object);
    return it != names_.end() ? it->second : std::string(base);
  }

 private:
  absl::flat_hash_map<const void*, std::string> names_;
  absl::flat_hash_set<std::string> taken_;
};

void WriteDataType(DataType dtype, v1::DataType* out) {
  out->set_scalar(ToProtoEnum(kScalarTypeMappings, dtype.scalar()));
  // Lanes 1 stays at the default 0, which readers take as a scalar.
  if (dtype.lanes() != 1) out->set_lanes(dtype.lanes());
}

void WriteLoc(const SourceLoc& loc, v1::SourceLocation* out) {
  out->set_file(loc.file);
  out->set_line(loc.line);
  out->set_col(loc.col);
}

class KernelWriter {
 public:
  void WriteKernel(const KernelNode& kernel, v1::Kernel* out);

 private:
  // Malformed IR (a null declaration or operand) is written as an empty message, which
  // readers reject by its path, rather than crashing the writer.
  void WriteVarDecl(const Var* var, v1::VarDecl* out);
  void WriteExpr(const Expr& expr, v1::Expr* out);
  void WriteExprs(const std::vector<Expr>& exprs,
                  google::protobuf::RepeatedPtrField<v1::Expr>* out);
  void WriteBufferDecl(const BufferNode* buffer, v1::BufferDecl* out);
  std::string BufferUse(const Buffer& buffer) const;
  void WriteRegion(const Region& region, v1::Region* out);
  void WriteStmt(const Stmt& stmt, v1::Stmt* out);
  void WriteFor(const For& node, v1::For* out);
  void WriteLaunch(const Launch& launch, v1::Launch* out);

  WrittenNames kernel_names_;
  // Layout outputs use only their layout's inputs, which have names of their own.
  WrittenNames* names_ = &kernel_names_;
};

void KernelWriter::WriteVarDecl(const Var* var, v1::VarDecl* out) {
  if (!var) return;
  out->set_name(names_->Declare(var, var->name));
  WriteDataType(var->dtype(), out->mutable_dtype());
}

void KernelWriter::WriteExprs(const std::vector<Expr>& exprs,
                              google::protobuf::RepeatedPtrField<v1::Expr>* out) {
  for (const Expr& e : exprs) WriteExpr(e, out->Add());
}

void KernelWriter::WriteExpr(const Expr& expr, v1::Expr* out) {
  if (!expr) return;
  switch (expr->kind()) {
    case ExprKind::kIntImm: {
      const auto& node = static_cast<const IntImm&>(*expr);
      WriteDataType(node.dtype(), out->mutable_int_imm()->mutable_dtype());
      out->mutable_int_imm()->set_value(node.value);
      return;
    }
    case ExprKind::kFloatImm: {
      const auto& node = static_cast<const FloatImm&>(*expr);
      WriteDataType(node.dtype(), out->mutable_float_imm()->mutable_dtype());
      out->mutable_float_imm()->set_value(node.value);
      return;
    }
    case ExprKind::kVar: {
      const auto& var = static_cast<const Var&>(*expr);
      out->mutable_var()->set_name(names_->Use(&var, var.name));
      return;
    }
    case ExprKind::kUnary: {
      const auto& node = static_cast<const Unary&>(*expr);
      v1::Unary* unary = out->mutable_unary();
      unary->set_op(ToProtoEnum(kUnaryOpMappings, node.op));
      WriteExpr(node.a, unary->mutable_a());
      return;
    }
    case ExprKind::kBinary: {
      const auto& node = static_cast<const Binary&>(*expr);
      v1::Binary* binary = out->mutable_binary();
      binary->set_op(ToProtoEnum(kBinaryOpMappings, node.op));
      WriteExpr(node.a, binary->mutable_a());
      WriteExpr(node.b, binary->mutable_b());
      return;
    }
    case ExprKind::kCast: {
      const auto& node = static_cast<const Cast&>(*expr);
      WriteDataType(node.dtype(), out->mutable_cast()->mutable_dtype());
      WriteExpr(node.value, out->mutable_cast()->mutable_value());
      return;
    }
    case ExprKind::kSelect: {
      const auto& node = static_cast<const Select&>(*expr);
      v1::Select* select = out->mutable_select();
      WriteExpr(node.cond, select->mutable_cond());
      WriteExpr(node.true_value, select->mutable_true_value());
      WriteExpr(node.false_value, select->mutable_false_value());
      return;
    }
    case ExprKind::kBufferLoad: {
      const auto& node = static_cast<const BufferLoad&>(*expr);
      out->mutable_buffer_load()->set_buffer(BufferUse(node.buffer));
      WriteExprs(node.indices, out->mutable_buffer_load()->mutable_indices());
      return;
    }
    case ExprKind::kCall: {
      const auto& node = static_cast<const Call&>(*expr);
      v1::Call* call = out->mutable_call();
      WriteDataType(node.dtype(), call->mutable_dtype());
      call->set_name(node.name);
      WriteExprs(node.args, call->mutable_args());
      return;
    }
    case ExprKind::kRamp: {
      const auto& node = static_cast<const Ramp&>(*expr);
      v1::Ramp* ramp = out->mutable_ramp();
      WriteExpr(node.base, ramp->mutable_base());
      WriteExpr(node.stride, ramp->mutable_stride());
      ramp->set_lanes(node.lanes);
      return;
    }
    case ExprKind::kBroadcast: {
      const auto& node = static_cast<const Broadcast&>(*expr);
      WriteExpr(node.value, out->mutable_broadcast()->mutable_value());
      out->mutable_broadcast()->set_lanes(node.lanes);
      return;
    }
  }
}

void KernelWriter::WriteBufferDecl(const BufferNode* buffer, v1::BufferDecl* out) {
  if (!buffer) return;
  out->set_name(kernel_names_.Declare(buffer, buffer->name));
  WriteDataType(buffer->dtype, out->mutable_dtype());
  WriteExprs(buffer->shape, out->mutable_shape());
  WriteExprs(buffer->strides, out->mutable_strides());
  out->set_scope(ToProtoEnum(kMemoryScopeMappings, buffer->scope));
  if (buffer->layout.has_value()) {
    WrittenNames layout_names;
    names_ = &layout_names;
    v1::Layout* layout = out->mutable_layout();
    for (const VarRef& input : buffer->layout->inputs) {
      WriteVarDecl(input.get(), layout->add_inputs());
    }
    if (buffer->layout->replica) {
      v1::LayoutReplica* replica = layout->mutable_replica();
      WriteVarDecl(buffer->layout->replica.get(), replica->mutable_var());
      replica->set_count(buffer->layout->replicate);
    }
    WriteExprs(buffer->layout->outputs, layout->mutable_outputs());
    names_ = &kernel_names_;
  }
}

std::string KernelWriter::BufferUse(const Buffer& buffer) const {
  return buffer ? kernel_names_.Use(buffer.get(), buffer->name) : "";
}

void KernelWriter::WriteRegion(const Region& region, v1::Region* out) {
  out->set_buffer(BufferUse(region.buffer));
  for (const Range& range : region.ranges) {
    v1::Range* r = out->add_ranges();
    WriteExpr(range.min, r->mutable_min());
    WriteExpr(range.extent, r->mutable_extent());
  }
}

void KernelWriter::WriteFor(const For& node, v1::For* out) {
  WriteVarDecl(node.var.get(), out->mutable_var());
  WriteExpr(node.min, out->mutable_min());
  WriteExpr(node.extent, out->mutable_extent());
  out->set_kind(ToProtoEnum(kForKindMappings, node.for_kind));
  // Pipeline and axis mean something only for their kinds, so only those carry them.
  if (node.for_kind == ForKind::kPipelined) {
    v1::PipelineInfo* pipeline = out->mutable_pipeline();
    pipeline->set_num_stages(node.pipeline.num_stages);
    for (int order : node.pipeline.order) pipeline->add_order(order);
    for (int stage : node.pipeline.stage) pipeline->add_stage(stage);
  }
  if (node.for_kind == ForKind::kThreadBound) {
    out->set_thread_axis(ToProtoEnum(kThreadAxisMappings, node.thread_axis));
  }
  WriteStmt(node.body, out->mutable_body());
}

void KernelWriter::WriteStmt(const Stmt& stmt, v1::Stmt* out) {
  if (!stmt) return;
  if (!(stmt->loc() == SourceLoc{})) WriteLoc(stmt->loc(), out->mutable_loc());
  switch (stmt->kind()) {
    case StmtKind::kSeq:
      out->mutable_seq();  // present even when empty: an empty block is still a statement
      for (const Stmt& s : static_cast<const Seq&>(*stmt).stmts) {
        WriteStmt(s, out->mutable_seq()->add_stmts());
      }
      return;
    case StmtKind::kFor:
      WriteFor(static_cast<const For&>(*stmt), out->mutable_for_());
      return;
    case StmtKind::kIf: {
      const auto& node = static_cast<const If&>(*stmt);
      WriteExpr(node.cond, out->mutable_if_()->mutable_cond());
      WriteStmt(node.then_body, out->mutable_if_()->mutable_then_body());
      if (node.else_body) WriteStmt(node.else_body, out->mutable_if_()->mutable_else_body());
      return;
    }
    case StmtKind::kLet: {
      const auto& node = static_cast<const Let&>(*stmt);
      WriteVarDecl(node.var.get(), out->mutable_let()->mutable_var());
      WriteExpr(node.value, out->mutable_let()->mutable_value());
      return;
    }
    case StmtKind::kAllocate: {
      const auto& node = static_cast<const Allocate&>(*stmt);
      WriteBufferDecl(node.buffer.get(), out->mutable_allocate()->mutable_buffer());
      if (node.shared_offset) out->mutable_allocate()->set_shared_offset(*node.shared_offset);
      return;
    }
    case StmtKind::kStore: {
      const auto& node = static_cast<const Store&>(*stmt);
      out->mutable_store()->set_buffer(BufferUse(node.buffer));
      WriteExprs(node.indices, out->mutable_store()->mutable_indices());
      WriteExpr(node.value, out->mutable_store()->mutable_value());
      return;
    }
    case StmtKind::kBarrier:
      out->mutable_barrier()->set_scope(
          ToProtoEnum(kBarrierScopeMappings, static_cast<const Barrier&>(*stmt).scope));
      return;
    case StmtKind::kEvaluate:
      WriteExpr(static_cast<const Evaluate&>(*stmt).value,
                out->mutable_evaluate()->mutable_value());
      return;
    case StmtKind::kCopy: {
      const auto& node = static_cast<const Copy&>(*stmt);
      WriteRegion(node.src, out->mutable_copy()->mutable_src());
      WriteRegion(node.dst, out->mutable_copy()->mutable_dst());
      return;
    }
    case StmtKind::kGemm: {
      const auto& node = static_cast<const Gemm&>(*stmt);
      v1::Gemm* gemm = out->mutable_gemm();
      WriteRegion(node.a, gemm->mutable_a());
      WriteRegion(node.b, gemm->mutable_b());
      WriteRegion(node.c, gemm->mutable_c());
      gemm->set_transpose_a(node.transpose_a);
      gemm->set_transpose_b(node.transpose_b);
      gemm->set_policy(ToProtoEnum(kWarpPolicyMappings, node.policy));
      gemm->set_clear_accum(node.clear_accum);
      return;
    }
    case StmtKind::kFill: {
      const auto& node = static_cast<const Fill&>(*stmt);
      WriteRegion(node.dst, out->mutable_fill()->mutable_dst());
      WriteExpr(node.value, out->mutable_fill()->mutable_value());
      return;
    }
    case StmtKind::kReduce: {
      const auto& node = static_cast<const Reduce&>(*stmt);
      v1::Reduce* reduce = out->mutable_reduce();
      reduce->set_kind(ToProtoEnum(kReduceKindMappings, node.reduce_kind));
      WriteRegion(node.src, reduce->mutable_src());
      WriteRegion(node.dst, reduce->mutable_dst());
      reduce->set_dim(node.dim);
      reduce->set_clear(node.clear);
      return;
    }
    case StmtKind::kAtomicAdd: {
      const auto& node = static_cast<const AtomicAdd&>(*stmt);
      WriteRegion(node.src, out->mutable_atomic_add()->mutable_src());
      WriteRegion(node.dst, out->mutable_atomic_add()->mutable_dst());
      return;
    }
    case StmtKind::kCumsum: {
      const auto& node = static_cast<const Cumsum&>(*stmt);
      v1::Cumsum* cumsum = out->mutable_cumsum();
      WriteRegion(node.src, cumsum->mutable_src());
      WriteRegion(node.dst, cumsum->mutable_dst());
      cumsum->set_dim(node.dim);
      cumsum->set_reverse(node.reverse);
      return;
    }
  }
}

void KernelWriter::WriteLaunch(const Launch& launch, v1::Launch* out) {
  // Extents use dims and scalar parameters only, so block indices are named after them.
  for (const GridAxis& axis : launch.grid) {
    WriteExpr(axis.extent, out->add_grid()->mutable_extent());
  }
  for (size_t i = 0; i < launch.grid.size(); ++i) {
    WriteVarDecl(launch.grid[i].var.get(), out->mutable_grid(i)->mutable_var());
  }
  for (int64_t threads : launch.threads) out->add_threads(threads);
  for (int64_t cluster : launch.cluster) out->add_cluster(cluster);
  if (launch.swizzle.has_value()) {
    out->mutable_swizzle()->set_panel_size(launch.swizzle->panel_size);
    out->mutable_swizzle()->set_order(ToProtoEnum(kSwizzleOrderMappings, launch.swizzle->order));
  }
}

void KernelWriter::WriteKernel(const KernelNode& kernel, v1::Kernel* out) {
  out->set_name(IsKernelName(kernel.name) ? kernel.name : SanitizeIdentifier(kernel.name));
  for (const VarRef& dim : kernel.dims) WriteVarDecl(dim.get(), out->add_dims());
  // Buffer shapes may use any scalar parameter, so scalars are named first.
  for (size_t i = 0; i < kernel.params.size(); ++i) out->add_params();
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const Param& param = kernel.params[i];
    if (param.scalar) WriteVarDecl(param.scalar.get(), out->mutable_params(i)->mutable_scalar());
  }
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const Param& param = kernel.params[i];
    if (param.buffer) WriteBufferDecl(param.buffer.get(), out->mutable_params(i)->mutable_buffer());
  }
  WriteLaunch(kernel.launch, out->mutable_launch());
  WriteStmt(kernel.body, out->mutable_body());
  if (!(kernel.loc == SourceLoc{})) WriteLoc(kernel.loc, out->mutable_loc());
  for (const ShapeRequirement& requirement : kernel.requirements) {
    v1::ShapeRequirement* written = out->add_requirements();
    WriteExpr(requirement.condition, written->mutable_condition());
    if (!(requirement.loc == SourceLoc{})) WriteLoc(requirement.loc, written->mutable_loc());
  }
}

}  // namespace

v1::Module ModuleToProto(const Module& module) {
  v1::Module proto;
  // The oldest version that has what the module uses, whatever version it was read as
  // (printer.cc does the same).
  proto.set_ir_version(RequiredIrVersion(module));
  proto.set_producer(module.producer);
  proto.set_producer_version(module.producer_version);
  for (const Kernel& kernel : module.kernels) {
    v1::Kernel* out = proto.add_kernels();
    if (kernel) KernelWriter().WriteKernel(*kernel, out);
  }
  return proto;
}

}  // namespace tile_ir
