// Reading expressions, regions, types, names and declarations of tile_ir.v1 messages.
#include "tile_ir/proto_read_expr.h"

#include <algorithm>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_format.h"
#include "tile_ir/proto_convert.h"
#include "tile_ir/text_syntax.h"
#include "tile_ir/version.h"

namespace tile_ir::proto_read {
namespace {

using Field = ReadContext::Field;

// Lanes of a vector type, ramp or broadcast, as DataType::Parse accepts them.
constexpr int kMaxLanes = 1024;

}  // namespace

absl::Status ExprReader::CheckName(const std::string& name, absl::string_view field) {
  if (IsValidIdentifierInVersion(name, std::max<int64_t>(declared_ir_version_, 1))) {
    return absl::OkStatus();
  }
  Field f(context_, field);
  if (name.empty()) return context_->Error("the name is empty");
  return context_->Error(absl::StrFormat(
      "'%s' is not a valid name; expected [A-Za-z_][A-Za-z0-9_.]* that is not a keyword of the "
      "text form",
      absl::CHexEscape(name)));
}

absl::Status ExprReader::CheckKernelName(const std::string& name) {
  if (IsKernelName(name)) return absl::OkStatus();
  Field f(context_, "name");
  if (name.empty()) return context_->Error("the kernel name is empty");
  return context_->Error(absl::StrFormat(
      "'%s' is not a valid kernel name; expected [A-Za-z_][A-Za-z0-9_.]*", absl::CHexEscape(name)));
}

absl::Status ExprReader::CheckDeclaredVersionHas(BinaryOp op, v1::BinaryOp value) {
  const int64_t needed = IntroducedInIrVersion(op);
  // A missing or invalid version is upgrade.h's to report; here it counts as version 1.
  if (needed <= std::max<int64_t>(declared_ir_version_, 1)) return absl::OkStatus();
  Field f(context_, "op");
  return context_->Error(absl::StrFormat(
      "%s needs ir_version %d, but the module declares ir_version %d (its producer must "
      "declare %d or later)",
      v1::BinaryOp_Name(value), needed, declared_ir_version_, needed));
}

absl::Status ExprReader::CheckDeclaredVersionHas(const std::string& intrinsic) {
  const int64_t needed = IntroducedInIrVersion(intrinsic);
  if (needed <= std::max<int64_t>(declared_ir_version_, 1)) return absl::OkStatus();
  Field f(context_, "name");
  return context_->Error(absl::StrFormat(
      "the intrinsic '%s' needs ir_version %d, but the module declares ir_version %d (its "
      "producer must declare %d or later)",
      intrinsic, needed, declared_ir_version_, needed));
}

absl::StatusOr<SourceLoc> ExprReader::ReadLoc(const v1::SourceLocation& proto) {
  Field f(context_, "loc");
  if (proto.line() < 0 || proto.col() < 0) {
    return context_->Error(
        absl::StrFormat("line %d, column %d: expected 0 (unknown) or a 1-based position",
                        proto.line(), proto.col()));
  }
  return SourceLoc{proto.file(), proto.line(), proto.col()};
}

absl::StatusOr<int> ExprReader::ReadLanes(int lanes) {
  if (lanes >= 1 && lanes <= kMaxLanes) return lanes;
  Field f(context_, "lanes");
  return context_->Error(absl::StrFormat("%d lanes; expected 1 to %d", lanes, kMaxLanes));
}

absl::StatusOr<DataType> ExprReader::ReadDataType(bool present, const v1::DataType& proto) {
  Field f(context_, "dtype");
  if (!present) return context_->Error("the dtype is missing");
  TILE_ASSIGN_OR_RETURN(ScalarType scalar, ReadEnum(kScalarTypeMappings, proto.scalar(), "scalar"));
  if (int64_t needed = IntroducedInIrVersion(scalar);
      needed > std::max<int64_t>(declared_ir_version_, 1)) {
    Field s(context_, "scalar");
    return context_->Error(absl::StrFormat(
        "%s needs ir_version %d, but the module declares ir_version %d (its producer must "
        "declare %d or later)",
        v1::ScalarType_Name(proto.scalar()), needed, declared_ir_version_, needed));
  }
  // 0 is the default, and so means a scalar.
  int lanes = 1;
  if (proto.lanes() != 0) {
    TILE_ASSIGN_OR_RETURN(lanes, ReadLanes(proto.lanes()));
  }
  return DataType(scalar, lanes);
}

absl::StatusOr<VarRef> ExprReader::ReadVarDecl(bool present, const v1::VarDecl& proto,
                                               absl::string_view field, int index) {
  Field f(context_, field, index);
  if (!present) return context_->Error("the variable declaration is missing");
  TILE_RETURN_IF_ERROR(CheckName(proto.name(), "name"));
  TILE_ASSIGN_OR_RETURN(DataType dtype, ReadDataType(proto.has_dtype(), proto.dtype()));
  return Var::Make(proto.name(), dtype);
}

absl::StatusOr<Layout> ExprReader::ReadLayout(const v1::Layout& proto) {
  Field f(context_, "layout");
  Layout layout;
  ReadContext::LayoutScope scope(context_);
  for (int i = 0; i < proto.inputs_size(); ++i) {
    TILE_ASSIGN_OR_RETURN(VarRef input, ReadVarDecl(true, proto.inputs(i), "inputs", i));
    Field input_field(context_, "inputs", i);
    TILE_RETURN_IF_ERROR(context_->DeclareVar(input, /*kernel_wide=*/false));
    layout.inputs.push_back(std::move(input));
  }
  if (proto.has_replica()) {
    Field replica_field(context_, "replica");
    if (std::max<int64_t>(declared_ir_version_, 1) < kReplicatedLayoutIrVersion) {
      return context_->Error(absl::StrFormat(
          "a replicated layout needs ir_version %d, but the module declares ir_version %d (its "
          "producer must declare %d or later)",
          kReplicatedLayoutIrVersion, declared_ir_version_, kReplicatedLayoutIrVersion));
    }
    TILE_ASSIGN_OR_RETURN(layout.replica,
                          ReadVarDecl(proto.replica().has_var(), proto.replica().var(), "var", -1));
    Field var_field(context_, "var");
    TILE_RETURN_IF_ERROR(context_->DeclareVar(layout.replica, /*kernel_wide=*/false));
    layout.replicate = proto.replica().count();
  }
  TILE_ASSIGN_OR_RETURN(layout.outputs, ReadExprs(proto.outputs(), "outputs"));
  return layout;
}

absl::StatusOr<Buffer> ExprReader::ReadBufferDecl(bool present, const v1::BufferDecl& proto,
                                                  absl::string_view field) {
  Field f(context_, field);
  if (!present) return context_->Error("the buffer declaration is missing");
  TILE_RETURN_IF_ERROR(CheckName(proto.name(), "name"));
  TILE_ASSIGN_OR_RETURN(DataType dtype, ReadDataType(proto.has_dtype(), proto.dtype()));
  TILE_ASSIGN_OR_RETURN(std::vector<Expr> shape, ReadExprs(proto.shape(), "shape"));
  TILE_ASSIGN_OR_RETURN(std::vector<Expr> strides, ReadExprs(proto.strides(), "strides"));
  TILE_ASSIGN_OR_RETURN(MemoryScope scope, ReadEnum(kMemoryScopeMappings, proto.scope(), "scope"));
  std::optional<Layout> layout;
  if (proto.has_layout()) {
    TILE_ASSIGN_OR_RETURN(layout, ReadLayout(proto.layout()));
  }
  return BufferNode::Make(proto.name(), dtype, std::move(shape), scope, std::move(strides),
                          std::move(layout));
}

absl::StatusOr<Expr> ExprReader::ReadExpr(const v1::Expr& proto) {
  ReadContext::Nesting nesting(context_);
  if (context_->NestedTooDeep()) {
    return context_->Error(NestingTooDeepMessage());
  }
  return ReadExprNode(proto);
}

absl::StatusOr<Expr> ExprReader::ReadChild(bool present, const v1::Expr& proto,
                                           absl::string_view field) {
  Field f(context_, field);
  if (!present) return context_->Error("the expression is missing");
  return ReadExpr(proto);
}

absl::StatusOr<std::vector<Expr>> ExprReader::ReadExprs(const ExprList& protos,
                                                        absl::string_view field) {
  std::vector<Expr> exprs;
  exprs.reserve(protos.size());
  for (int i = 0; i < protos.size(); ++i) {
    Field f(context_, field, i);
    TILE_ASSIGN_OR_RETURN(Expr e, ReadExpr(protos[i]));
    exprs.push_back(std::move(e));
  }
  return exprs;
}

absl::StatusOr<Expr> ExprReader::ReadExprNode(const v1::Expr& proto) {
  switch (proto.node_case()) {
    case v1::Expr::kIntImm: {
      Field f(context_, "int_imm");
      TILE_ASSIGN_OR_RETURN(DataType dtype,
                            ReadDataType(proto.int_imm().has_dtype(), proto.int_imm().dtype()));
      return IntImm::Make(dtype, proto.int_imm().value());
    }
    case v1::Expr::kFloatImm: {
      Field f(context_, "float_imm");
      const v1::FloatImm& imm = proto.float_imm();
      TILE_ASSIGN_OR_RETURN(DataType dtype, ReadDataType(imm.has_dtype(), imm.dtype()));
      return FloatImm::Make(dtype, imm.value());
    }
    case v1::Expr::kVar: {
      Field f(context_, "var");
      TILE_ASSIGN_OR_RETURN(VarRef var, context_->LookupVar(proto.var().name()));
      return Expr(std::move(var));
    }
    case v1::Expr::kUnary: {
      Field f(context_, "unary");
      const v1::Unary& unary = proto.unary();
      TILE_ASSIGN_OR_RETURN(UnaryOp op, ReadEnum(kUnaryOpMappings, unary.op(), "op"));
      TILE_ASSIGN_OR_RETURN(Expr a, ReadChild(unary.has_a(), unary.a(), "a"));
      return Unary::Make(op, std::move(a));
    }
    case v1::Expr::kBinary: {
      Field f(context_, "binary");
      const v1::Binary& binary = proto.binary();
      TILE_ASSIGN_OR_RETURN(BinaryOp op, ReadEnum(kBinaryOpMappings, binary.op(), "op"));
      TILE_RETURN_IF_ERROR(CheckDeclaredVersionHas(op, binary.op()));
      TILE_ASSIGN_OR_RETURN(Expr a, ReadChild(binary.has_a(), binary.a(), "a"));
      TILE_ASSIGN_OR_RETURN(Expr b, ReadChild(binary.has_b(), binary.b(), "b"));
      return Binary::Make(op, std::move(a), std::move(b));
    }
    case v1::Expr::kCast: {
      Field f(context_, "cast");
      const v1::Cast& cast = proto.cast();
      TILE_ASSIGN_OR_RETURN(DataType dtype, ReadDataType(cast.has_dtype(), cast.dtype()));
      TILE_ASSIGN_OR_RETURN(Expr value, ReadChild(cast.has_value(), cast.value(), "value"));
      return Cast::Make(dtype, std::move(value));
    }
    case v1::Expr::kSelect: {
      Field f(context_, "select");
      const v1::Select& select = proto.select();
      TILE_ASSIGN_OR_RETURN(Expr cond, ReadChild(select.has_cond(), select.cond(), "cond"));
      TILE_ASSIGN_OR_RETURN(Expr true_value,
                            ReadChild(select.has_true_value(), select.true_value(), "true_value"));
      TILE_ASSIGN_OR_RETURN(Expr false_value, ReadChild(select.has_false_value(),
                                                        select.false_value(), "false_value"));
      return Select::Make(std::move(cond), std::move(true_value), std::move(false_value));
    }
    case v1::Expr::kBufferLoad: {
      Field f(context_, "buffer_load");
      const v1::BufferLoad& load = proto.buffer_load();
      Buffer buffer;
      {
        Field buffer_field(context_, "buffer");
        TILE_ASSIGN_OR_RETURN(buffer, context_->LookupBuffer(load.buffer()));
      }
      TILE_ASSIGN_OR_RETURN(std::vector<Expr> indices, ReadExprs(load.indices(), "indices"));
      return BufferLoad::Make(std::move(buffer), std::move(indices));
    }
    case v1::Expr::kCall: {
      Field f(context_, "call");
      const v1::Call& call = proto.call();
      TILE_ASSIGN_OR_RETURN(DataType dtype, ReadDataType(call.has_dtype(), call.dtype()));
      TILE_RETURN_IF_ERROR(CheckName(call.name(), "name"));
      TILE_RETURN_IF_ERROR(CheckDeclaredVersionHas(call.name()));
      TILE_ASSIGN_OR_RETURN(std::vector<Expr> args, ReadExprs(call.args(), "args"));
      return Call::Make(dtype, call.name(), std::move(args));
    }
    case v1::Expr::kRamp: {
      Field f(context_, "ramp");
      const v1::Ramp& ramp = proto.ramp();
      TILE_ASSIGN_OR_RETURN(Expr base, ReadChild(ramp.has_base(), ramp.base(), "base"));
      TILE_ASSIGN_OR_RETURN(Expr stride, ReadChild(ramp.has_stride(), ramp.stride(), "stride"));
      TILE_ASSIGN_OR_RETURN(int lanes, ReadLanes(ramp.lanes()));
      return Ramp::Make(std::move(base), std::move(stride), lanes);
    }
    case v1::Expr::kBroadcast: {
      Field f(context_, "broadcast");
      const v1::Broadcast& broadcast = proto.broadcast();
      TILE_ASSIGN_OR_RETURN(Expr value,
                            ReadChild(broadcast.has_value(), broadcast.value(), "value"));
      TILE_ASSIGN_OR_RETURN(int lanes, ReadLanes(broadcast.lanes()));
      return Broadcast::Make(std::move(value), lanes);
    }
    case v1::Expr::NODE_NOT_SET:
      break;
  }
  return context_->Error(
      "the expression has no node set; expected one of int_imm, float_imm, var, unary, binary, "
      "cast, select, buffer_load, call, ramp, broadcast");
}

absl::StatusOr<Region> ExprReader::ReadRegion(bool present, const v1::Region& proto,
                                              absl::string_view field) {
  Field f(context_, field);
  if (!present) return context_->Error("the region is missing");
  Region region;
  {
    Field buffer_field(context_, "buffer");
    TILE_ASSIGN_OR_RETURN(region.buffer, context_->LookupBuffer(proto.buffer()));
  }
  for (int i = 0; i < proto.ranges_size(); ++i) {
    Field range_field(context_, "ranges", i);
    const v1::Range& range = proto.ranges(i);
    TILE_ASSIGN_OR_RETURN(Expr min, ReadChild(range.has_min(), range.min(), "min"));
    TILE_ASSIGN_OR_RETURN(Expr extent, ReadChild(range.has_extent(), range.extent(), "extent"));
    region.ranges.push_back({std::move(min), std::move(extent)});
  }
  return region;
}

}  // namespace tile_ir::proto_read
