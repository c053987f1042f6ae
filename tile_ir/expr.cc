#include "tile_ir/expr.h"

#include <optional>

#include "tile_ir/buffer.h"

namespace tile_ir {

bool IsComparison(BinaryOp op) {
  switch (op) {
    case BinaryOp::kEq:
    case BinaryOp::kNe:
    case BinaryOp::kLt:
    case BinaryOp::kLe:
    case BinaryOp::kGt:
    case BinaryOp::kGe:
      return true;
    default:
      return false;
  }
}

bool IsLogical(BinaryOp op) { return op == BinaryOp::kAnd || op == BinaryOp::kOr; }

Expr IntImm::Make(DataType dtype, int64_t value) {
  return std::make_shared<const IntImm>(dtype, value);
}

Expr FloatImm::Make(DataType dtype, double value) {
  return std::make_shared<const FloatImm>(dtype, value);
}

VarRef Var::Make(std::string name, DataType dtype) {
  return std::make_shared<const Var>(std::move(name), dtype);
}

Expr Unary::Make(UnaryOp op, Expr a) {
  DataType dtype = a->dtype();
  if (op == UnaryOp::kNot) dtype = kBool.with_lanes(dtype.lanes());
  return std::make_shared<const Unary>(op, std::move(a), dtype);
}

Expr Binary::Make(BinaryOp op, Expr a, Expr b) {
  DataType dtype = a->dtype();
  if (IsComparison(op) || IsLogical(op)) dtype = kBool.with_lanes(dtype.lanes());
  return std::make_shared<const Binary>(op, std::move(a), std::move(b), dtype);
}

Expr Cast::Make(DataType dtype, Expr value) {
  return std::make_shared<const Cast>(dtype, std::move(value));
}

Expr Select::Make(Expr cond, Expr true_value, Expr false_value) {
  DataType dtype = true_value->dtype();
  return std::make_shared<const Select>(std::move(cond), std::move(true_value),
                                        std::move(false_value), dtype);
}

Expr BufferLoad::Make(Buffer buffer, std::vector<Expr> indices) {
  int lanes = indices.empty() ? 1 : indices.back()->dtype().lanes();
  DataType dtype = buffer->dtype.with_lanes(lanes);
  return std::make_shared<const BufferLoad>(std::move(buffer), std::move(indices), dtype);
}

Expr Call::Make(DataType dtype, std::string name, std::vector<Expr> args) {
  return std::make_shared<const Call>(dtype, std::move(name), std::move(args));
}

Expr Ramp::Make(Expr base, Expr stride, int lanes) {
  DataType dtype = base->dtype().with_lanes(lanes);
  return std::make_shared<const Ramp>(std::move(base), std::move(stride), lanes, dtype);
}

Expr Broadcast::Make(Expr value, int lanes) {
  DataType dtype = value->dtype().with_lanes(lanes);
  return std::make_shared<const Broadcast>(std::move(value), lanes, dtype);
}

Expr Int(int64_t value, DataType dtype) { return IntImm::Make(dtype, value); }
Expr Float(double value, DataType dtype) { return FloatImm::Make(dtype, value); }
Expr Bool(bool value) { return IntImm::Make(kBool, value ? 1 : 0); }

std::optional<int64_t> AsConstInt(const Expr& e) {
  if (const auto* imm = As<IntImm>(e)) return imm->value;
  return std::nullopt;
}

std::string_view UnaryOpName(UnaryOp op) {
  switch (op) {
    case UnaryOp::kNeg:
      return "neg";
    case UnaryOp::kNot:
      return "not";
  }
  return "?";
}

std::string_view BinaryOpName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd: return "add";
    case BinaryOp::kSub: return "sub";
    case BinaryOp::kMul: return "mul";
    case BinaryOp::kDiv: return "div";
    case BinaryOp::kMod: return "mod";
    case BinaryOp::kFloorDiv: return "floordiv";
    case BinaryOp::kFloorMod: return "floormod";
    case BinaryOp::kCeilDiv: return "ceildiv";
    case BinaryOp::kMin: return "min";
    case BinaryOp::kMax: return "max";
    case BinaryOp::kEq: return "eq";
    case BinaryOp::kNe: return "ne";
    case BinaryOp::kLt: return "lt";
    case BinaryOp::kLe: return "le";
    case BinaryOp::kGt: return "gt";
    case BinaryOp::kGe: return "ge";
    case BinaryOp::kAnd: return "and";
    case BinaryOp::kOr: return "or";
    case BinaryOp::kXor: return "xor";
    case BinaryOp::kBitAnd: return "bitand";
    case BinaryOp::kBitOr: return "bitor";
    case BinaryOp::kShl: return "shl";
    case BinaryOp::kShr: return "shr";
  }
  return "?";
}

}  // namespace tile_ir
