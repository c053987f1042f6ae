// Reading the leaves of tile_ir.v1 messages: expressions, regions, types, names, enums and
// declarations. Statements and kernels are in proto_read.cc. Internal to proto_convert.
#ifndef TILE_IR_PROTO_READ_EXPR_H_
#define TILE_IR_PROTO_READ_EXPR_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "tile_ir/buffer.h"
#include "tile_ir/dtype.h"
#include "tile_ir/expr.h"
#include "tile_ir/proto/tile_ir.pb.h"
#include "tile_ir/proto_enums.h"
#include "tile_ir/proto_read_context.h"
#include "tile_ir/source_loc.h"

namespace tile_ir::proto_read {

using ExprList = google::protobuf::RepeatedPtrField<v1::Expr>;

// Each Read* pushes its field onto the context's path, so errors say where they are.
class ExprReader {
 public:
  // `declared_ir_version` is the version the module's file declared: a feature that came
  // later is an error, since no file of that version can hold it.
  ExprReader(ReadContext* context, int64_t declared_ir_version)
      : context_(context), declared_ir_version_(declared_ir_version) {}

  // Names are identifiers of the text form (text_syntax.h), so every module prints.
  absl::Status CheckName(const std::string& name, absl::string_view field);
  // Kernel names only follow `kernel`, so keywords are allowed there.
  absl::Status CheckKernelName(const std::string& name);
  absl::StatusOr<SourceLoc> ReadLoc(const v1::SourceLocation& proto);
  absl::StatusOr<DataType> ReadDataType(bool present, const v1::DataType& proto);
  absl::StatusOr<int> ReadLanes(int lanes);
  absl::StatusOr<VarRef> ReadVarDecl(bool present, const v1::VarDecl& proto,
                                     absl::string_view field, int index = -1);
  // The buffer's own name is not declared here: the caller does it where its scope starts.
  absl::StatusOr<Buffer> ReadBufferDecl(bool present, const v1::BufferDecl& proto,
                                        absl::string_view field);

  // An enum field; UNSPECIFIED and values unknown to this build are errors listing the
  // values expected.
  template <typename IrEnum, typename ProtoEnum, size_t N>
  absl::StatusOr<IrEnum> ReadEnum(const EnumMapping<IrEnum, ProtoEnum> (&mappings)[N], int value,
                                  absl::string_view field);

  absl::StatusOr<Expr> ReadExpr(const v1::Expr& proto);
  // A required expression field.
  absl::StatusOr<Expr> ReadChild(bool present, const v1::Expr& proto, absl::string_view field);
  absl::StatusOr<std::vector<Expr>> ReadExprs(const ExprList& protos, absl::string_view field);
  absl::StatusOr<Region> ReadRegion(bool present, const v1::Region& proto, absl::string_view field);

 private:
  absl::StatusOr<Expr> ReadExprNode(const v1::Expr& proto);
  absl::StatusOr<Layout> ReadLayout(const v1::Layout& proto);
  absl::Status CheckDeclaredVersionHas(BinaryOp op, v1::BinaryOp value);
  absl::Status CheckDeclaredVersionHas(const std::string& intrinsic);

  ReadContext* context_;
  int64_t declared_ir_version_;
};

template <typename IrEnum, typename ProtoEnum, size_t N>
absl::StatusOr<IrEnum> ExprReader::ReadEnum(const EnumMapping<IrEnum, ProtoEnum> (&mappings)[N],
                                            int value, absl::string_view field) {
  if (std::optional<IrEnum> ir = FromProtoEnum(mappings, value)) return *ir;
  const google::protobuf::EnumDescriptor* descriptor =
      google::protobuf::GetEnumDescriptor<ProtoEnum>();
  std::vector<std::string> expected;
  for (const auto& mapping : mappings) {
    expected.push_back(descriptor->FindValueByNumber(mapping.proto)->name());
  }
  ReadContext::Field f(context_, field);
  std::string problem = value == 0 ? absl::StrCat(descriptor->value(0)->name(), " (unset)")
                                   : absl::StrCat("unknown ", descriptor->name(), " value ", value);
  return context_->Error(
      absl::StrCat(problem, "; expected one of ", absl::StrJoin(expected, ", ")));
}

}  // namespace tile_ir::proto_read

#endif  // TILE_IR_PROTO_READ_EXPR_H_
