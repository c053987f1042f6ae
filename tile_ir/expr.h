// Expression nodes of the tile IR.
//
// Nodes are immutable and shared: an Expr is a shared_ptr to a const node,
// built with each class's Make(). Rewrites build new nodes (see mutator.h) and
// reuse every subtree that did not change. Variables have identity: two Var
// nodes with the same name are different variables.
#ifndef TILE_IR_EXPR_H_
#define TILE_IR_EXPR_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tile_ir/dtype.h"
#include "tile_ir/node_list.h"

namespace tile_ir {

enum class ExprKind : uint8_t {
#define TILE_IR_EXPR_KIND(Name) k##Name,
  TILE_IR_FOR_EACH_EXPR(TILE_IR_EXPR_KIND)
#undef TILE_IR_EXPR_KIND
};

class ExprNode {
 public:
  ExprNode(ExprKind kind, DataType dtype) : kind_(kind), dtype_(dtype) {}
  virtual ~ExprNode() = default;
  ExprNode(const ExprNode&) = delete;
  ExprNode& operator=(const ExprNode&) = delete;

  ExprKind kind() const { return kind_; }
  DataType dtype() const { return dtype_; }

 private:
  const ExprKind kind_;
  const DataType dtype_;
};

using Expr = std::shared_ptr<const ExprNode>;

class BufferNode;
using Buffer = std::shared_ptr<const BufferNode>;

// Downcasts; As returns nullptr when the kind differs.
template <typename T>
const T* As(const Expr& e) {
  return e && e->kind() == T::kKind ? static_cast<const T*>(e.get()) : nullptr;
}
template <typename T>
std::shared_ptr<const T> AsShared(const Expr& e) {
  return e && e->kind() == T::kKind ? std::static_pointer_cast<const T>(e) : nullptr;
}

// Integer or bool constant (bool uses 0 and 1).
class IntImm final : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kIntImm;
  IntImm(DataType dtype, int64_t value) : ExprNode(kKind, dtype), value(value) {}
  static Expr Make(DataType dtype, int64_t value);
  const int64_t value;
};

class FloatImm final : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kFloatImm;
  FloatImm(DataType dtype, double value) : ExprNode(kKind, dtype), value(value) {}
  static Expr Make(DataType dtype, double value);
  const double value;
};

class Var final : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kVar;
  Var(std::string name, DataType dtype) : ExprNode(kKind, dtype), name(std::move(name)) {}
  static std::shared_ptr<const Var> Make(std::string name, DataType dtype = kI32);
  const std::string name;
};
using VarRef = std::shared_ptr<const Var>;

enum class UnaryOp : uint8_t { kNeg, kNot };

class Unary final : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kUnary;
  Unary(UnaryOp op, Expr a, DataType dtype) : ExprNode(kKind, dtype), op(op), a(std::move(a)) {}
  static Expr Make(UnaryOp op, Expr a);
  const UnaryOp op;
  const Expr a;
};

// Integer Div and Mod truncate toward zero as in C; FloorDiv, FloorMod and
// CeilDiv round as their names say. Comparisons and logic yield bool. Xor is
// bitwise on integers (two's complement for signed ones), new in ir_version 2.
enum class BinaryOp : uint8_t {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kFloorDiv,
  kFloorMod,
  kCeilDiv,
  kMin,
  kMax,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kAnd,
  kOr,
  kXor,
  // Bitwise on integers (ir_version 5). Shifts take the amount modulo the width (b & (bits - 1),
  // as x86 and Java do), so every amount is defined; kShr is arithmetic on signed types and
  // logical on unsigned ones.
  kBitAnd,
  kBitOr,
  kShl,
  kShr,
};

bool IsComparison(BinaryOp op);
bool IsLogical(BinaryOp op);

class Binary final : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kBinary;
  Binary(BinaryOp op, Expr a, Expr b, DataType dtype)
      : ExprNode(kKind, dtype), op(op), a(std::move(a)), b(std::move(b)) {}
  // The result type is bool (with a's lanes) for comparisons and logic, else a's type.
  static Expr Make(BinaryOp op, Expr a, Expr b);
  const BinaryOp op;
  const Expr a;
  const Expr b;
};

class Cast final : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kCast;
  Cast(DataType dtype, Expr value) : ExprNode(kKind, dtype), value(std::move(value)) {}
  static Expr Make(DataType dtype, Expr value);
  const Expr value;
};

class Select final : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kSelect;
  Select(Expr cond, Expr true_value, Expr false_value, DataType dtype)
      : ExprNode(kKind, dtype),
        cond(std::move(cond)),
        true_value(std::move(true_value)),
        false_value(std::move(false_value)) {}
  static Expr Make(Expr cond, Expr true_value, Expr false_value);
  const Expr cond;
  const Expr true_value;
  const Expr false_value;
};

class BufferLoad final : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kBufferLoad;
  BufferLoad(Buffer buffer, std::vector<Expr> indices, DataType dtype)
      : ExprNode(kKind, dtype), buffer(std::move(buffer)), indices(std::move(indices)) {}
  // The result has the buffer's element type, with the lanes of the last index
  // (a ramp index loads a vector).
  static Expr Make(Buffer buffer, std::vector<Expr> indices);
  const Buffer buffer;
  const std::vector<Expr> indices;
};

// A call of a named intrinsic (see intrinsics.h); dtype is the result type.
class Call final : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kCall;
  Call(DataType dtype, std::string name, std::vector<Expr> args)
      : ExprNode(kKind, dtype), name(std::move(name)), args(std::move(args)) {}
  static Expr Make(DataType dtype, std::string name, std::vector<Expr> args);
  const std::string name;
  const std::vector<Expr> args;
};

// The vector (base, base + stride, ..., base + (lanes - 1) * stride).
class Ramp final : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kRamp;
  Ramp(Expr base, Expr stride, int lanes, DataType dtype)
      : ExprNode(kKind, dtype), base(std::move(base)), stride(std::move(stride)), lanes(lanes) {}
  static Expr Make(Expr base, Expr stride, int lanes);
  const Expr base;
  const Expr stride;
  const int lanes;
};

// A scalar repeated in every lane.
class Broadcast final : public ExprNode {
 public:
  static constexpr ExprKind kKind = ExprKind::kBroadcast;
  Broadcast(Expr value, int lanes, DataType dtype)
      : ExprNode(kKind, dtype), value(std::move(value)), lanes(lanes) {}
  static Expr Make(Expr value, int lanes);
  const Expr value;
  const int lanes;
};

// Shorthands for building index arithmetic.
Expr Int(int64_t value, DataType dtype = kI32);
Expr Float(double value, DataType dtype = kF32);
Expr Bool(bool value);

// The integer value of e when it is an IntImm.
std::optional<int64_t> AsConstInt(const Expr& e);

std::string_view UnaryOpName(UnaryOp op);
std::string_view BinaryOpName(BinaryOp op);

}  // namespace tile_ir

#endif  // TILE_IR_EXPR_H_
