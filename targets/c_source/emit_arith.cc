// Unary and binary operators with the IR's semantics: narrow integers wrap
// (C++ computes on them in int), shifts take the amount modulo the width, i4 wraps to 4 bits,
// fp8 computes in f32 and
// rounds once, f16 and bf16 use the dialect's operators, divisions
// that round other than toward zero and min/max go through the device library.
#include <string>

#include "absl/strings/str_cat.h"
#include "targets/c_source/c_types.h"
#include "targets/c_source/kernel_emitter.h"

namespace tile_ir::c_source {
namespace {

struct Infix {
  const char* text;
  int prec;
};

Infix InfixOf(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd: return {"+", kPrecAdditive};
    case BinaryOp::kSub: return {"-", kPrecAdditive};
    case BinaryOp::kMul: return {"*", kPrecMultiplicative};
    case BinaryOp::kDiv: return {"/", kPrecMultiplicative};
    case BinaryOp::kMod: return {"%", kPrecMultiplicative};
    case BinaryOp::kEq: return {"==", kPrecEquality};
    case BinaryOp::kNe: return {"!=", kPrecEquality};
    case BinaryOp::kLt: return {"<", kPrecRelational};
    case BinaryOp::kLe: return {"<=", kPrecRelational};
    case BinaryOp::kGt: return {">", kPrecRelational};
    case BinaryOp::kGe: return {">=", kPrecRelational};
    case BinaryOp::kAnd: return {"&&", kPrecAnd};
    case BinaryOp::kOr: return {"||", kPrecOr};
    case BinaryOp::kXor: return {"^", kPrecBitXor};
    case BinaryOp::kBitAnd: return {"&", kPrecBitAnd};
    case BinaryOp::kBitOr: return {"|", kPrecBitOr};
    case BinaryOp::kShl: return {"<<", kPrecShift};
    case BinaryOp::kShr: return {">>", kPrecShift};
    default: return {nullptr, 0};
  }
}

bool IsBitwise(int prec) {
  return prec == kPrecBitOr || prec == kPrecBitXor || prec == kPrecBitAnd || prec == kPrecShift;
}

// Left-associative: the right operand of the same precedence needs parentheses. Compilers
// warn about arithmetic inside '^', '&', '|' and shifts (-Wparentheses), and readers misjudge
// it, so their binary operands are always parenthesized.
CExpr ApplyInfix(const CExpr& a, Infix op, const CExpr& b) {
  int left = IsBitwise(op.prec) ? kPrecUnary : op.prec;
  int right = IsBitwise(op.prec) ? kPrecUnary : op.prec + 1;
  return CExpr{absl::StrCat(Operand(a, left), " ", op.text, " ", Operand(b, right)), op.prec};
}

const char* LibraryFunction(BinaryOp op) {
  switch (op) {
    case BinaryOp::kFloorDiv: return "tl::floordiv";
    case BinaryOp::kFloorMod: return "tl::floormod";
    case BinaryOp::kCeilDiv: return "tl::ceildiv";
    case BinaryOp::kMin: return "tl::min";
    case BinaryOp::kMax: return "tl::max";
    default: return nullptr;
  }
}

// An integer result of type `type` computed by C++ in int, wrapped back.
CExpr WrapInt(const Dialect& dialect, const CExpr& value, ScalarType type) {
  if (type == ScalarType::kI4) return Primary(absl::StrCat("tl::wrap_i4(", value.text, ")"));
  if (IsNarrowInt(type)) {
    return Primary(absl::StrCat("static_cast<", dialect.ValueType(type), ">(", value.text, ")"));
  }
  return value;
}

// floordiv and ceildiv of -8 by -1 leave i4's range.
bool MayLeaveI4(BinaryOp op) { return op == BinaryOp::kFloorDiv || op == BinaryOp::kCeilDiv; }

}  // namespace

CExpr KernelEmitter::EmitUnary(const Unary& node) {
  CExpr a = EmitExpr(node.a);
  if (node.op == UnaryOp::kNot) return CExpr{"!" + Operand(a, kPrecUnary), kPrecUnary};
  ScalarType type = node.a->dtype().scalar();
  if (IsFp8(type)) a = Convert(dialect_, a, type, ScalarType::kF32);
  // A space keeps "- -x" from reading as a decrement.
  std::string operand = Operand(a, kPrecUnary);
  CExpr negated{absl::StrCat("-", operand[0] == '-' ? " " : "", operand), kPrecUnary};
  if (IsFp8(type)) return Convert(dialect_, negated, ScalarType::kF32, type);
  return WrapInt(dialect_, negated, type);
}

CExpr KernelEmitter::EmitBinary(const Binary& node) {
  ScalarType type = node.a->dtype().scalar();
  CExpr a = EmitExpr(node.a);
  CExpr b = EmitExpr(node.b);
  if (node.op == BinaryOp::kShl || node.op == BinaryOp::kShr) {
    // The IR shifts by the amount modulo the width (tile_ir/expr.h); C++ leaves a shift by the
    // width or more undefined. A constant amount is reduced here.
    const int64_t mask = node.a->dtype().element().bits() - 1;
    if (const auto* amount = As<IntImm>(node.b)) {
      b = EmitExpr(IntImm::Make(node.b->dtype(), amount->value & mask));
    } else {
      b = CExpr{absl::StrCat(Operand(b, kPrecUnary), " & ", mask), kPrecBitAnd};
    }
  }
  if (const char* function = LibraryFunction(node.op)) {
    CExpr call = Primary(absl::StrCat(function, "(", a.text, ", ", b.text, ")"));
    // tl:: templates return the operand type, which wraps for i8/i16/u8 but not for i4.
    return type == ScalarType::kI4 && MayLeaveI4(node.op) ? WrapInt(dialect_, call, type) : call;
  }
  Infix op = InfixOf(node.op);
  if (op.text == nullptr) return Fail("an unknown binary operator");
  if (IsFp8(type)) {
    CExpr result = ApplyInfix(Convert(dialect_, a, type, ScalarType::kF32), op,
                              Convert(dialect_, b, type, ScalarType::kF32));
    bool yields_bool = IsComparison(node.op) || IsLogical(node.op);
    return yields_bool ? result : Convert(dialect_, result, ScalarType::kF32, type);
  }
  if (type == ScalarType::kU16 && node.op == BinaryOp::kMul) {
    // C++ promotes unsigned short to int, where 65535 * 65535 overflows (undefined); in
    // the 32-bit unsigned type the product wraps, and WrapInt keeps its low 16 bits as the IR
    // does.
    a = Primary(
        absl::StrCat("static_cast<", dialect_.ValueType(ScalarType::kU32), ">(", a.text, ")"));
  }
  CExpr result = ApplyInfix(a, op, b);
  // Integer results come back to their own type (C++ promotes narrow ones to int).
  bool arithmetic = !IsComparison(node.op) && !IsLogical(node.op);
  return arithmetic ? WrapInt(dialect_, result, type) : result;
}

}  // namespace tile_ir::c_source
