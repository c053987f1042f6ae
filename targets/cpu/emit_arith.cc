// Binary operators: arithmetic with each dtype's rules, comparisons, logic
// (short-circuit where the right operand reads memory), bit operations and shifts (by the
// amount modulo the width, tile_ir/expr.h), and the integer
// division family, which is total: x / 0 is 0 and x % 0 is x, and the
// overflowing MIN / -1 wraps, so no input can trap the process.
#include <string>

#include "absl/strings/str_cat.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/PatternMatch.h"
#include "targets/cpu/float_formats.h"
#include "targets/cpu/kernel_emitter.h"

namespace tile_ir::cpu {
namespace {

// i32 and i64 arithmetic overflow is undefined as in C (and in the C++ the GPU
// targets emit): nsw lets LLVM turn index arithmetic into affine addresses.
bool HasNoSignedWrap(DataType type) {
  return type.scalar() == ScalarType::kI32 || type.scalar() == ScalarType::kI64;
}

}  // namespace

llvm::Value* KernelEmitter::EmitBinary(const Binary& binary) {
  // A clamp of a guarded load's index that the guard makes the identity.
  if (Expr unclamped = guard_facts_.Unclamped(binary)) return EmitExpr(unclamped);
  if (IsLogical(binary.op) && NeedsGuard(binary.b)) {
    // a && b is select(a, b, false); a || b is select(a, true, b).
    llvm::Value* a = EmitExpr(binary.a);
    llvm::Value* constant = llvm::ConstantInt::get(a->getType(), binary.op == BinaryOp::kOr);
    auto right = [&] { return EmitExpr(binary.b); };
    auto fixed = [&] { return constant; };
    return binary.op == BinaryOp::kAnd ? EmitGuardedSelect(a, right, fixed)
                                       : EmitGuardedSelect(a, fixed, right);
  }
  llvm::Value* a = EmitExpr(binary.a);
  llvm::Value* b = EmitExpr(binary.b);
  return EmitBinaryOp(binary.op, a, b, binary.a->dtype());
}

llvm::Value* KernelEmitter::EmitBinaryOp(BinaryOp op, llvm::Value* a, llvm::Value* b,
                                         DataType type) {
  llvm::IRBuilder<>& ir = builder_;
  if (type.is_float()) {
    llvm::Value* result = nullptr;
    switch (op) {
      case BinaryOp::kAdd:
        result = ir.CreateFAdd(a, b);
        break;
      case BinaryOp::kSub:
        result = ir.CreateFSub(a, b);
        break;
      case BinaryOp::kMul:
        result = ir.CreateFMul(a, b);
        break;
      case BinaryOp::kDiv:
        result = ir.CreateFDiv(a, b);
        break;
      // minnum/maxnum return the other operand when one is NaN, like fminf.
      case BinaryOp::kMin:
        return ir.CreateMinNum(a, b);
      case BinaryOp::kMax:
        return ir.CreateMaxNum(a, b);
      // Ordered comparisons, except != which is true for NaN, as in C.
      case BinaryOp::kEq:
        return ir.CreateFCmpOEQ(a, b);
      case BinaryOp::kNe:
        return ir.CreateFCmpUNE(a, b);
      case BinaryOp::kLt:
        return ir.CreateFCmpOLT(a, b);
      case BinaryOp::kLe:
        return ir.CreateFCmpOLE(a, b);
      case BinaryOp::kGt:
        return ir.CreateFCmpOGT(a, b);
      case BinaryOp::kGe:
        return ir.CreateFCmpOGE(a, b);
      default:
        return Fail(
            absl::StrCat(std::string(BinaryOpName(op)), " on ", type.ToString(), " has no meaning"),
            a->getType());
    }
    // bf16 and fp8 compute in f32 and round once: exact, as f32 holds more
    // than twice their significand bits.
    return IsBitStoredFloat(type.scalar()) ? RoundF32To(ir, result, type.scalar()) : result;
  }
  bool is_unsigned = type.is_unsigned() || type.is_bool();
  bool nsw = HasNoSignedWrap(type);
  switch (op) {
    case BinaryOp::kAdd:
      return ir.CreateAdd(a, b, "", false, nsw);
    case BinaryOp::kSub:
      return ir.CreateSub(a, b, "", false, nsw);
    case BinaryOp::kMul:
      return ir.CreateMul(a, b, "", false, nsw);
    case BinaryOp::kDiv:
    case BinaryOp::kMod:
    case BinaryOp::kFloorDiv:
    case BinaryOp::kFloorMod:
    case BinaryOp::kCeilDiv:
      return EmitIntDivision(op, a, b, type);
    case BinaryOp::kMin:
      return ir.CreateBinaryIntrinsic(is_unsigned ? llvm::Intrinsic::umin : llvm::Intrinsic::smin,
                                      a, b);
    case BinaryOp::kMax:
      return ir.CreateBinaryIntrinsic(is_unsigned ? llvm::Intrinsic::umax : llvm::Intrinsic::smax,
                                      a, b);
    case BinaryOp::kEq:
      return ir.CreateICmpEQ(a, b);
    case BinaryOp::kNe:
      return ir.CreateICmpNE(a, b);
    case BinaryOp::kLt:
      return is_unsigned ? ir.CreateICmpULT(a, b) : ir.CreateICmpSLT(a, b);
    case BinaryOp::kLe:
      return is_unsigned ? ir.CreateICmpULE(a, b) : ir.CreateICmpSLE(a, b);
    case BinaryOp::kGt:
      return is_unsigned ? ir.CreateICmpUGT(a, b) : ir.CreateICmpSGT(a, b);
    case BinaryOp::kGe:
      return is_unsigned ? ir.CreateICmpUGE(a, b) : ir.CreateICmpSGE(a, b);
    case BinaryOp::kAnd:
      return ir.CreateAnd(a, b);
    case BinaryOp::kOr:
      return ir.CreateOr(a, b);
    case BinaryOp::kXor:
      return ir.CreateXor(a, b);
    case BinaryOp::kBitAnd:
      return ir.CreateAnd(a, b);
    case BinaryOp::kBitOr:
      return ir.CreateOr(a, b);
    case BinaryOp::kShl:
    case BinaryOp::kShr: {
      // The amount modulo the width (every width is a power of two), so no amount is poison.
      llvm::Value* amount =
          ir.CreateAnd(b, llvm::ConstantInt::get(b->getType(), type.element().bits() - 1));
      if (op == BinaryOp::kShl) return ir.CreateShl(a, amount);
      return is_unsigned ? ir.CreateLShr(a, amount) : ir.CreateAShr(a, amount);
    }
  }
  return Fail("unknown binary operator", a->getType());
}

llvm::Value* KernelEmitter::EmitIntDivision(BinaryOp op, llvm::Value* a, llvm::Value* b,
                                            DataType type) {
  llvm::IRBuilder<>& ir = builder_;
  bool is_unsigned = type.is_unsigned();
  llvm::Type* t = a->getType();
  auto constant = [&](int64_t v) { return llvm::ConstantInt::get(t, v, /*isSigned=*/true); };
  // A constant divisor that can neither be 0 nor -1 needs no guard.
  const llvm::APInt* known = nullptr;
  bool guarded = !llvm::PatternMatch::match(b, llvm::PatternMatch::m_APInt(known)) ||
                 known->isZero() || (!is_unsigned && known->isAllOnes());
  llvm::Value* is_zero = nullptr;
  llvm::Value* is_minus_one = nullptr;
  llvm::Value* divisor = b;
  if (guarded) {
    is_zero = ir.CreateICmpEQ(b, constant(0));
    llvm::Value* bad = is_zero;
    if (!is_unsigned) {
      is_minus_one = ir.CreateICmpEQ(b, constant(-1));
      bad = ir.CreateOr(bad, is_minus_one);
    }
    divisor = ir.CreateSelect(bad, constant(1), b);
  }
  llvm::Value* q = is_unsigned ? ir.CreateUDiv(a, divisor) : ir.CreateSDiv(a, divisor);
  llvm::Value* r = is_unsigned ? ir.CreateURem(a, divisor) : ir.CreateSRem(a, divisor);
  if (is_minus_one != nullptr) {
    q = ir.CreateSelect(is_minus_one, ir.CreateNeg(a), q);
    r = ir.CreateSelect(is_minus_one, constant(0), r);
  }
  llvm::Value* inexact = ir.CreateICmpNE(r, constant(0));
  // Signs of the remainder (that of a) and of b differ: the exact quotient is
  // negative, so truncation rounded it up.
  llvm::Value* signs_differ = is_unsigned ? llvm::ConstantInt::getFalse(inexact->getType())
                                          : ir.CreateXor(ir.CreateICmpSLT(r, constant(0)),
                                                         ir.CreateICmpSLT(b, constant(0)));
  llvm::Value* result = nullptr;
  switch (op) {
    case BinaryOp::kDiv:
      result = q;
      break;
    case BinaryOp::kMod:
      result = r;
      break;
    case BinaryOp::kFloorDiv:
      result = ir.CreateSub(q, ir.CreateZExt(ir.CreateAnd(inexact, signs_differ), t));
      break;
    case BinaryOp::kFloorMod:
      result = ir.CreateSelect(ir.CreateAnd(inexact, signs_differ), ir.CreateAdd(r, b), r);
      break;
    case BinaryOp::kCeilDiv:
      result = ir.CreateAdd(q, ir.CreateZExt(ir.CreateAnd(inexact, ir.CreateNot(signs_differ)), t));
      break;
    default:
      return Fail("not a division", t);
  }
  if (is_zero == nullptr) return result;
  bool remainder = op == BinaryOp::kMod || op == BinaryOp::kFloorMod;
  return ir.CreateSelect(is_zero, remainder ? a : constant(0), result);
}

}  // namespace tile_ir::cpu
