// Reading: tile_ir.v1 messages to the in-memory IR, resolving names lexically (the rules are
// in the schema's header). Statements and kernels are here, expressions and declarations in
// proto_read_expr.cc, writing in proto_convert.cc.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tile_ir/proto_convert.h"
#include "tile_ir/proto_enums.h"
#include "tile_ir/proto_read_context.h"
#include "tile_ir/proto_read_expr.h"
#include "tile_ir/text_syntax.h"
#include "tile_ir/version.h"

namespace tile_ir {
namespace {

using proto_read::ExprReader;
using proto_read::ReadContext;
using Field = ReadContext::Field;

class ModuleReader {
 public:
  explicit ModuleReader(int64_t declared_ir_version) : declared_ir_version_(declared_ir_version) {}

  absl::StatusOr<Module> Read(const v1::Module& proto);

 private:
  absl::StatusOr<Kernel> ReadKernel(const v1::Kernel& proto);
  absl::StatusOr<std::vector<ShapeRequirement>> ReadRequirements(
      const google::protobuf::RepeatedPtrField<v1::ShapeRequirement>& protos);
  absl::StatusOr<std::vector<Param>> ReadParams(
      const google::protobuf::RepeatedPtrField<v1::Param>& protos);
  absl::StatusOr<Launch> ReadLaunch(const v1::Launch& proto);
  absl::StatusOr<Stmt> ReadStmt(const v1::Stmt& proto);
  absl::StatusOr<Stmt> ReadStmtNode(const v1::Stmt& proto, SourceLoc loc);
  // A required nested statement, in a frame of its own so that a Let or Allocate directly in
  // it does not leak out.
  absl::StatusOr<Stmt> ReadBody(bool present, const v1::Stmt& proto, absl::string_view field);
  absl::StatusOr<Stmt> ReadSeq(const v1::Seq& proto, SourceLoc loc);
  absl::StatusOr<Stmt> ReadFor(const v1::For& proto, SourceLoc loc);
  absl::StatusOr<Stmt> ReadTileOp(const v1::Stmt& proto, SourceLoc loc);

  const int64_t declared_ir_version_;
  ReadContext context_;
  ExprReader exprs_{&context_, declared_ir_version_};
};

absl::StatusOr<Stmt> ModuleReader::ReadStmt(const v1::Stmt& proto) {
  ReadContext::Nesting nesting(&context_);
  if (context_.NestedTooDeep()) {
    return context_.Error(NestingTooDeepMessage());
  }
  SourceLoc loc;
  if (proto.has_loc()) {
    TILE_ASSIGN_OR_RETURN(loc, exprs_.ReadLoc(proto.loc()));
  }
  std::optional<ReadContext::Location> location;
  if (loc.known()) location.emplace(&context_, loc);
  return ReadStmtNode(proto, std::move(loc));
}

absl::StatusOr<Stmt> ModuleReader::ReadBody(bool present, const v1::Stmt& proto,
                                            absl::string_view field) {
  Field f(&context_, field);
  if (!present) return context_.Error("the statement is missing");
  // The text form writes every body as a block, so a lone statement counts as one inside a
  // block: the module's text then nests no deeper than its message (nesting_limit.h).
  std::optional<ReadContext::Nesting> block;
  if (!proto.has_seq()) block.emplace(&context_);
  context_.PushFrame();
  absl::StatusOr<Stmt> body = ReadStmt(proto);
  context_.PopFrame();
  return body;
}

absl::StatusOr<Stmt> ModuleReader::ReadSeq(const v1::Seq& proto, SourceLoc loc) {
  Field f(&context_, "seq");
  std::vector<Stmt> stmts;
  stmts.reserve(proto.stmts_size());
  context_.PushFrame();
  for (int i = 0; i < proto.stmts_size(); ++i) {
    Field stmt_field(&context_, "stmts", i);
    TILE_ASSIGN_OR_RETURN(Stmt stmt, ReadStmt(proto.stmts(i)));
    stmts.push_back(std::move(stmt));
  }
  context_.PopFrame();
  return Seq::Make(std::move(stmts), std::move(loc));
}

absl::StatusOr<Stmt> ModuleReader::ReadFor(const v1::For& proto, SourceLoc loc) {
  Field f(&context_, "for");
  TILE_ASSIGN_OR_RETURN(VarRef var, exprs_.ReadVarDecl(proto.has_var(), proto.var(), "var"));
  TILE_ASSIGN_OR_RETURN(Expr min, exprs_.ReadChild(proto.has_min(), proto.min(), "min"));
  TILE_ASSIGN_OR_RETURN(Expr extent,
                        exprs_.ReadChild(proto.has_extent(), proto.extent(), "extent"));
  TILE_ASSIGN_OR_RETURN(ForKind kind, exprs_.ReadEnum(kForKindMappings, proto.kind(), "kind"));
  PipelineInfo pipeline;
  if (proto.has_pipeline()) {
    Field pipeline_field(&context_, "pipeline");
    if (kind != ForKind::kPipelined) {
      return context_.Error(absl::StrFormat("a %s loop has pipeline info; only pipelined loops do",
                                            ForKindName(kind)));
    }
    pipeline.num_stages = proto.pipeline().num_stages();
    pipeline.order.assign(proto.pipeline().order().begin(), proto.pipeline().order().end());
    pipeline.stage.assign(proto.pipeline().stage().begin(), proto.pipeline().stage().end());
  }
  ThreadAxis axis = ThreadAxis::kNone;
  if (kind == ForKind::kThreadBound) {
    TILE_ASSIGN_OR_RETURN(axis,
                          exprs_.ReadEnum(kThreadAxisMappings, proto.thread_axis(), "thread_axis"));
  } else if (proto.thread_axis() != v1::THREAD_AXIS_UNSPECIFIED) {
    Field axis_field(&context_, "thread_axis");
    return context_.Error(absl::StrFormat("a %s loop has a thread axis; only thread_bound loops do",
                                          ForKindName(kind)));
  }
  context_.PushFrame();
  {
    Field var_field(&context_, "var");
    TILE_RETURN_IF_ERROR(context_.DeclareVar(var));
  }
  absl::StatusOr<Stmt> body = ReadBody(proto.has_body(), proto.body(), "body");
  context_.PopFrame();
  if (!body.ok()) return body.status();
  return For::Make(std::move(var), std::move(min), std::move(extent), kind, *std::move(body),
                   std::move(loc), std::move(pipeline), axis);
}

absl::StatusOr<Stmt> ModuleReader::ReadStmtNode(const v1::Stmt& proto, SourceLoc loc) {
  switch (proto.node_case()) {
    case v1::Stmt::kSeq:
      return ReadSeq(proto.seq(), std::move(loc));
    case v1::Stmt::kFor:
      return ReadFor(proto.for_(), std::move(loc));
    case v1::Stmt::kIf: {
      Field f(&context_, "if");
      const v1::If& node = proto.if_();
      TILE_ASSIGN_OR_RETURN(Expr cond, exprs_.ReadChild(node.has_cond(), node.cond(), "cond"));
      TILE_ASSIGN_OR_RETURN(Stmt then_body,
                            ReadBody(node.has_then_body(), node.then_body(), "then_body"));
      Stmt else_body;
      if (node.has_else_body()) {
        TILE_ASSIGN_OR_RETURN(else_body, ReadBody(true, node.else_body(), "else_body"));
      }
      return If::Make(std::move(cond), std::move(then_body), std::move(else_body), std::move(loc));
    }
    case v1::Stmt::kLet: {
      Field f(&context_, "let");
      const v1::Let& let = proto.let();
      TILE_ASSIGN_OR_RETURN(VarRef var, exprs_.ReadVarDecl(let.has_var(), let.var(), "var"));
      // The value is read first: a Let's own name is not visible in its value.
      TILE_ASSIGN_OR_RETURN(Expr value, exprs_.ReadChild(let.has_value(), let.value(), "value"));
      Field var_field(&context_, "var");
      TILE_RETURN_IF_ERROR(context_.DeclareVar(var));
      return Let::Make(std::move(var), std::move(value), std::move(loc));
    }
    case v1::Stmt::kAllocate: {
      Field f(&context_, "allocate");
      const v1::Allocate& allocate = proto.allocate();
      TILE_ASSIGN_OR_RETURN(
          Buffer buffer, exprs_.ReadBufferDecl(allocate.has_buffer(), allocate.buffer(), "buffer"));
      Field buffer_field(&context_, "buffer");
      TILE_RETURN_IF_ERROR(context_.DeclareBuffer(buffer));
      std::optional<int64_t> shared_offset;
      if (allocate.has_shared_offset()) shared_offset = allocate.shared_offset();
      return Allocate::Make(std::move(buffer), std::move(loc), shared_offset);
    }
    case v1::Stmt::kStore: {
      Field f(&context_, "store");
      const v1::Store& store = proto.store();
      Buffer buffer;
      {
        Field buffer_field(&context_, "buffer");
        TILE_ASSIGN_OR_RETURN(buffer, context_.LookupBuffer(store.buffer()));
      }
      TILE_ASSIGN_OR_RETURN(std::vector<Expr> indices,
                            exprs_.ReadExprs(store.indices(), "indices"));
      TILE_ASSIGN_OR_RETURN(Expr value,
                            exprs_.ReadChild(store.has_value(), store.value(), "value"));
      return Store::Make(std::move(buffer), std::move(indices), std::move(value), std::move(loc));
    }
    case v1::Stmt::kBarrier: {
      Field f(&context_, "barrier");
      TILE_ASSIGN_OR_RETURN(BarrierScope scope, exprs_.ReadEnum(kBarrierScopeMappings,
                                                                proto.barrier().scope(), "scope"));
      return Barrier::Make(scope, std::move(loc));
    }
    case v1::Stmt::kEvaluate: {
      Field f(&context_, "evaluate");
      const v1::Evaluate& evaluate = proto.evaluate();
      TILE_ASSIGN_OR_RETURN(Expr value,
                            exprs_.ReadChild(evaluate.has_value(), evaluate.value(), "value"));
      return Evaluate::Make(std::move(value), std::move(loc));
    }
    case v1::Stmt::kCopy:
    case v1::Stmt::kGemm:
    case v1::Stmt::kFill:
    case v1::Stmt::kReduce:
    case v1::Stmt::kAtomicAdd:
    case v1::Stmt::kCumsum:
      return ReadTileOp(proto, std::move(loc));
    case v1::Stmt::NODE_NOT_SET:
      break;
  }
  return context_.Error(
      "the statement has no node set; expected one of seq, for, if, let, allocate, store, "
      "barrier, evaluate, copy, gemm, fill, reduce, atomic_add, cumsum");
}

absl::StatusOr<Stmt> ModuleReader::ReadTileOp(const v1::Stmt& proto, SourceLoc loc) {
  switch (proto.node_case()) {
    case v1::Stmt::kCopy: {
      Field f(&context_, "copy");
      const v1::Copy& copy = proto.copy();
      TILE_ASSIGN_OR_RETURN(Region src, exprs_.ReadRegion(copy.has_src(), copy.src(), "src"));
      TILE_ASSIGN_OR_RETURN(Region dst, exprs_.ReadRegion(copy.has_dst(), copy.dst(), "dst"));
      return Copy::Make(std::move(src), std::move(dst), std::move(loc));
    }
    case v1::Stmt::kGemm: {
      Field f(&context_, "gemm");
      const v1::Gemm& gemm = proto.gemm();
      TILE_ASSIGN_OR_RETURN(Region a, exprs_.ReadRegion(gemm.has_a(), gemm.a(), "a"));
      TILE_ASSIGN_OR_RETURN(Region b, exprs_.ReadRegion(gemm.has_b(), gemm.b(), "b"));
      TILE_ASSIGN_OR_RETURN(Region c, exprs_.ReadRegion(gemm.has_c(), gemm.c(), "c"));
      TILE_ASSIGN_OR_RETURN(WarpPolicy policy,
                            exprs_.ReadEnum(kWarpPolicyMappings, gemm.policy(), "policy"));
      return Gemm::Make(std::move(a), std::move(b), std::move(c), gemm.transpose_a(),
                        gemm.transpose_b(), policy, gemm.clear_accum(), std::move(loc));
    }
    case v1::Stmt::kFill: {
      Field f(&context_, "fill");
      const v1::Fill& fill = proto.fill();
      TILE_ASSIGN_OR_RETURN(Region dst, exprs_.ReadRegion(fill.has_dst(), fill.dst(), "dst"));
      TILE_ASSIGN_OR_RETURN(Expr value, exprs_.ReadChild(fill.has_value(), fill.value(), "value"));
      return Fill::Make(std::move(dst), std::move(value), std::move(loc));
    }
    case v1::Stmt::kReduce: {
      Field f(&context_, "reduce");
      const v1::Reduce& reduce = proto.reduce();
      TILE_ASSIGN_OR_RETURN(ReduceKind kind,
                            exprs_.ReadEnum(kReduceKindMappings, reduce.kind(), "kind"));
      if (int64_t needed = IntroducedInIrVersion(kind);
          needed > std::max<int64_t>(declared_ir_version_, 1)) {
        Field k(&context_, "kind");
        return context_.Error(absl::StrFormat(
            "%s needs ir_version %d, but the module declares ir_version %d (its producer must "
            "declare %d or later)",
            v1::ReduceKind_Name(reduce.kind()), needed, declared_ir_version_, needed));
      }
      TILE_ASSIGN_OR_RETURN(Region src, exprs_.ReadRegion(reduce.has_src(), reduce.src(), "src"));
      TILE_ASSIGN_OR_RETURN(Region dst, exprs_.ReadRegion(reduce.has_dst(), reduce.dst(), "dst"));
      return Reduce::Make(kind, std::move(src), std::move(dst), reduce.dim(), reduce.clear(),
                          std::move(loc));
    }
    case v1::Stmt::kAtomicAdd: {
      Field f(&context_, "atomic_add");
      const v1::AtomicAdd& add = proto.atomic_add();
      TILE_ASSIGN_OR_RETURN(Region src, exprs_.ReadRegion(add.has_src(), add.src(), "src"));
      TILE_ASSIGN_OR_RETURN(Region dst, exprs_.ReadRegion(add.has_dst(), add.dst(), "dst"));
      return AtomicAdd::Make(std::move(src), std::move(dst), std::move(loc));
    }
    case v1::Stmt::kCumsum: {
      Field f(&context_, "cumsum");
      const v1::Cumsum& cumsum = proto.cumsum();
      TILE_ASSIGN_OR_RETURN(Region src, exprs_.ReadRegion(cumsum.has_src(), cumsum.src(), "src"));
      TILE_ASSIGN_OR_RETURN(Region dst, exprs_.ReadRegion(cumsum.has_dst(), cumsum.dst(), "dst"));
      return Cumsum::Make(std::move(src), std::move(dst), cumsum.dim(), cumsum.reverse(),
                          std::move(loc));
    }
    default:
      return absl::InternalError("ReadTileOp called on a statement that is not a tile op");
  }
}

absl::StatusOr<Launch> ModuleReader::ReadLaunch(const v1::Launch& proto) {
  Field f(&context_, "launch");
  Launch launch;
  // Extents see the dims and scalar parameters; block indices are declared after them all.
  for (int i = 0; i < proto.grid_size(); ++i) {
    Field axis_field(&context_, "grid", i);
    const v1::GridAxis& axis = proto.grid(i);
    TILE_ASSIGN_OR_RETURN(Expr extent,
                          exprs_.ReadChild(axis.has_extent(), axis.extent(), "extent"));
    launch.grid.push_back({nullptr, std::move(extent)});
  }
  for (int i = 0; i < proto.grid_size(); ++i) {
    Field axis_field(&context_, "grid", i);
    const v1::GridAxis& axis = proto.grid(i);
    TILE_ASSIGN_OR_RETURN(launch.grid[i].var,
                          exprs_.ReadVarDecl(axis.has_var(), axis.var(), "var"));
    Field var_field(&context_, "var");
    TILE_RETURN_IF_ERROR(context_.DeclareVar(launch.grid[i].var));
  }
  launch.threads.assign(proto.threads().begin(), proto.threads().end());
  launch.cluster.assign(proto.cluster().begin(), proto.cluster().end());
  if (proto.has_swizzle()) {
    Field swizzle_field(&context_, "swizzle");
    BlockSwizzle swizzle;
    swizzle.panel_size = proto.swizzle().panel_size();
    TILE_ASSIGN_OR_RETURN(swizzle.order,
                          exprs_.ReadEnum(kSwizzleOrderMappings, proto.swizzle().order(), "order"));
    launch.swizzle = swizzle;
  }
  return launch;
}

// Dims and scalar parameters come first, whatever the parameter order, because every buffer
// parameter's shape may use them.
absl::StatusOr<std::vector<Param>> ModuleReader::ReadParams(
    const google::protobuf::RepeatedPtrField<v1::Param>& protos) {
  std::vector<Param> params(protos.size());
  for (int i = 0; i < protos.size(); ++i) {
    Field param_field(&context_, "params", i);
    if (protos[i].has_buffer()) continue;
    if (!protos[i].has_scalar()) {
      return context_.Error("the parameter is neither a buffer nor a scalar; set one of them");
    }
    TILE_ASSIGN_OR_RETURN(params[i].scalar, exprs_.ReadVarDecl(true, protos[i].scalar(), "scalar"));
    Field scalar_field(&context_, "scalar");
    TILE_RETURN_IF_ERROR(context_.DeclareVar(params[i].scalar));
  }
  for (int i = 0; i < protos.size(); ++i) {
    if (!protos[i].has_buffer()) continue;
    Field param_field(&context_, "params", i);
    TILE_ASSIGN_OR_RETURN(params[i].buffer,
                          exprs_.ReadBufferDecl(true, protos[i].buffer(), "buffer"));
    Field buffer_field(&context_, "buffer");
    TILE_RETURN_IF_ERROR(context_.DeclareBuffer(params[i].buffer));
  }
  return params;
}

absl::StatusOr<Kernel> ModuleReader::ReadKernel(const v1::Kernel& proto) {
  context_.StartKernel(IsKernelName(proto.name()) ? proto.name() : "");
  SourceLoc loc;
  if (proto.has_loc()) {
    TILE_ASSIGN_OR_RETURN(loc, exprs_.ReadLoc(proto.loc()));
  }
  ReadContext::Location location(&context_, loc);
  TILE_RETURN_IF_ERROR(exprs_.CheckKernelName(proto.name()));
  context_.PushFrame();
  std::vector<VarRef> dims;
  for (int i = 0; i < proto.dims_size(); ++i) {
    TILE_ASSIGN_OR_RETURN(VarRef dim, exprs_.ReadVarDecl(true, proto.dims(i), "dims", i));
    Field dim_field(&context_, "dims", i);
    TILE_RETURN_IF_ERROR(context_.DeclareVar(dim));
    dims.push_back(std::move(dim));
  }
  TILE_ASSIGN_OR_RETURN(std::vector<Param> params, ReadParams(proto.params()));
  TILE_ASSIGN_OR_RETURN(Launch launch, ReadLaunch(proto.launch()));
  TILE_ASSIGN_OR_RETURN(std::vector<ShapeRequirement> requirements,
                        ReadRequirements(proto.requirements()));
  absl::StatusOr<Stmt> body = ReadBody(proto.has_body(), proto.body(), "body");
  if (!body.ok() && !proto.has_launch() && context_.saw_undeclared()) {
    // The launch declares the block indices: without it, the body's first use of one fails, and
    // the missing launch is the error to name.
    Field f(&context_, "launch");
    return context_.Error(absl::StrCat(
        "the kernel has no launch (its grid, which declares the block indices, and its threads); "
        "its body: ",
        body.status().message()));
  }
  if (!body.ok()) return body.status();
  context_.PopFrame();
  return KernelNode::Make(proto.name(), std::move(dims), std::move(params), std::move(launch),
                          *std::move(body), std::move(loc), std::move(requirements));
}

absl::StatusOr<std::vector<ShapeRequirement>> ModuleReader::ReadRequirements(
    const google::protobuf::RepeatedPtrField<v1::ShapeRequirement>& protos) {
  std::vector<ShapeRequirement> requirements;
  for (int i = 0; i < protos.size(); ++i) {
    Field f(&context_, "requirements", i);
    if (std::max<int64_t>(declared_ir_version_, 1) < kShapeRequirementsIrVersion) {
      return context_.Error(absl::StrFormat(
          "shape requirements need ir_version %d, but the module declares ir_version %d (its "
          "producer must declare %d or later)",
          kShapeRequirementsIrVersion, declared_ir_version_, kShapeRequirementsIrVersion));
    }
    ShapeRequirement requirement;
    if (protos[i].has_loc()) {
      TILE_ASSIGN_OR_RETURN(requirement.loc, exprs_.ReadLoc(protos[i].loc()));
    }
    TILE_ASSIGN_OR_RETURN(requirement.condition,
                          exprs_.ReadChild(protos[i].has_condition(), protos[i].condition(),
                                           "condition"));
    requirements.push_back(std::move(requirement));
  }
  return requirements;
}

absl::StatusOr<Module> ModuleReader::Read(const v1::Module& proto) {
  Module module;
  module.ir_version = declared_ir_version_;
  module.producer = proto.producer();
  module.producer_version = proto.producer_version();
  for (int i = 0; i < proto.kernels_size(); ++i) {
    Field f(&context_, "kernels", i);
    TILE_ASSIGN_OR_RETURN(Kernel kernel, ReadKernel(proto.kernels(i)));
    module.kernels.push_back(std::move(kernel));
  }
  return module;
}

}  // namespace

absl::StatusOr<Module> ModuleFromProto(const v1::Module& proto) {
  return ModuleFromProto(proto, proto.ir_version());
}

absl::StatusOr<Module> ModuleFromProto(const v1::Module& proto, int64_t declared_ir_version) {
  return ModuleReader(declared_ir_version).Read(proto);
}

}  // namespace tile_ir
