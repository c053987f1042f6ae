// Expressions: constants, variables, unary operators, casts, selects (with
// lazy arms where an arm reads memory) and the vector forms ramp and broadcast.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "llvm/IR/Constants.h"
#include "targets/cpu/kernel_emitter.h"
#include "tile_ir/intrinsics.h"

namespace tile_ir::cpu {

llvm::Value* KernelEmitter::EmitExpr(const Expr& expr) {
  DataType type = expr->dtype();
  switch (expr->kind()) {
    case ExprKind::kIntImm:
      return llvm::ConstantInt::get(RegisterType(type), static_cast<const IntImm&>(*expr).value,
                                    /*isSigned=*/true);
    case ExprKind::kFloatImm: {
      // Rounded to the type the same way as a cast from f64; the builder folds it.
      llvm::Value* exact =
          llvm::ConstantFP::get(builder_.getDoubleTy(), static_cast<const FloatImm&>(*expr).value);
      return EmitCast(exact, kF64, type);
    }
    case ExprKind::kVar: {
      const auto& var = static_cast<const Var&>(*expr);
      auto it = vars_.find(&var);
      if (it != vars_.end()) return it->second;
      return Fail(absl::StrCat("variable '", var.name, "' has no value here"), RegisterType(type));
    }
    case ExprKind::kUnary: {
      const auto& unary = static_cast<const Unary&>(*expr);
      llvm::Value* a = EmitExpr(unary.a);
      if (unary.op == UnaryOp::kNot) return builder_.CreateNot(a);
      return type.is_float() ? builder_.CreateFNeg(a) : builder_.CreateNeg(a);
    }
    case ExprKind::kBinary:
      return EmitBinary(static_cast<const Binary&>(*expr));
    case ExprKind::kCast: {
      const auto& cast = static_cast<const Cast&>(*expr);
      return EmitCast(EmitExpr(cast.value), cast.value->dtype(), type);
    }
    case ExprKind::kSelect:
      return EmitSelect(static_cast<const Select&>(*expr));
    case ExprKind::kBufferLoad:
      return EmitLoad(static_cast<const BufferLoad&>(*expr));
    case ExprKind::kCall:
      return EmitCall(static_cast<const Call&>(*expr));
    case ExprKind::kRamp:
      return EmitRamp(static_cast<const Ramp&>(*expr));
    case ExprKind::kBroadcast: {
      const auto& broadcast = static_cast<const Broadcast&>(*expr);
      return builder_.CreateVectorSplat(broadcast.lanes, EmitExpr(broadcast.value));
    }
  }
  return Fail("unknown expression kind", RegisterType(type));
}

llvm::Value* KernelEmitter::EmitRamp(const Ramp& ramp) {
  llvm::Value* base = EmitExpr(ramp.base);
  llvm::Value* stride = EmitExpr(ramp.stride);
  std::vector<llvm::Constant*> lanes;
  for (int i = 0; i < ramp.lanes; ++i) lanes.push_back(llvm::ConstantInt::get(base->getType(), i));
  llvm::Value* steps = builder_.CreateMul(builder_.CreateVectorSplat(ramp.lanes, stride),
                                          llvm::ConstantVector::get(lanes));
  return builder_.CreateAdd(builder_.CreateVectorSplat(ramp.lanes, base), steps);
}

llvm::Value* KernelEmitter::EmitSelect(const Select& select) {
  if (select.dtype().is_void()) return Fail("a select of void values has no meaning");
  llvm::Value* cond = EmitExpr(select.cond);
  if (!NeedsGuard(select.true_value) && !NeedsGuard(select.false_value)) {
    return builder_.CreateSelect(cond, EmitExpr(select.true_value), EmitExpr(select.false_value));
  }
  auto on_true = [&] {
    if (select.cond->dtype().is_vector()) return EmitExpr(select.true_value);
    size_t mark = guard_facts_.Assume(select.cond);
    llvm::Value* value = EmitExpr(select.true_value);
    guard_facts_.Forget(mark);
    return value;
  };
  return EmitGuardedSelect(cond, on_true, [&] { return EmitExpr(select.false_value); });
}

llvm::Value* KernelEmitter::EmitGuardedSelect(llvm::Value* cond,
                                              const std::function<llvm::Value*()>& on_true,
                                              const std::function<llvm::Value*()>& on_false) {
  if (cond->getType()->isVectorTy()) {
    llvm::Value* outer = lane_mask_;
    auto restrict_to = [&](llvm::Value* lanes) {
      return outer == nullptr ? lanes : builder_.CreateAnd(outer, lanes);
    };
    lane_mask_ = restrict_to(cond);
    llvm::Value* true_value = on_true();
    lane_mask_ = restrict_to(builder_.CreateNot(cond));
    llvm::Value* false_value = on_false();
    lane_mask_ = outer;
    return builder_.CreateSelect(cond, true_value, false_value);
  }
  llvm::BasicBlock* true_block = llvm::BasicBlock::Create(context_, "select.true", function_);
  llvm::BasicBlock* false_block = llvm::BasicBlock::Create(context_, "select.false", function_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(context_, "select.done", function_);
  builder_.CreateCondBr(cond, true_block, false_block);
  builder_.SetInsertPoint(true_block);
  llvm::Value* true_value = on_true();
  llvm::BasicBlock* true_end = builder_.GetInsertBlock();
  builder_.CreateBr(done);
  builder_.SetInsertPoint(false_block);
  llvm::Value* false_value = on_false();
  llvm::BasicBlock* false_end = builder_.GetInsertBlock();
  builder_.CreateBr(done);
  builder_.SetInsertPoint(done);
  llvm::PHINode* phi = builder_.CreatePHI(true_value->getType(), 2);
  phi->addIncoming(true_value, true_end);
  phi->addIncoming(false_value, false_end);
  return phi;
}

llvm::Value* KernelEmitter::EmitIf(llvm::Value* cond, llvm::Type* type,
                                   const std::function<llvm::Value*()>& fn) {
  llvm::Value* zero = type->isVoidTy() ? nullptr : llvm::Constant::getNullValue(type);
  llvm::BasicBlock* then_block = llvm::BasicBlock::Create(context_, "guard.then", function_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(context_, "guard.done", function_);
  llvm::BasicBlock* before = builder_.GetInsertBlock();
  builder_.CreateCondBr(cond, then_block, done);
  builder_.SetInsertPoint(then_block);
  llvm::Value* value = fn();
  llvm::BasicBlock* then_end = builder_.GetInsertBlock();
  builder_.CreateBr(done);
  builder_.SetInsertPoint(done);
  if (zero == nullptr) return nullptr;
  llvm::PHINode* phi = builder_.CreatePHI(type, 2);
  phi->addIncoming(value, then_end);
  phi->addIncoming(zero, before);
  return phi;
}

bool KernelEmitter::NeedsGuard(const Expr& expr) {
  auto cached = needs_guard_.find(expr.get());
  if (cached != needs_guard_.end()) return cached->second;
  bool result = false;
  switch (expr->kind()) {
    case ExprKind::kBufferLoad:
      result = true;
      break;
    case ExprKind::kCall: {
      const auto& call = static_cast<const Call&>(*expr);
      const IntrinsicInfo* info = FindIntrinsic(call.name);
      result = info == nullptr || !info->pure;
      for (const Expr& arg : call.args) result = result || NeedsGuard(arg);
      break;
    }
    case ExprKind::kUnary:
      result = NeedsGuard(static_cast<const Unary&>(*expr).a);
      break;
    case ExprKind::kBinary: {
      const auto& binary = static_cast<const Binary&>(*expr);
      result = NeedsGuard(binary.a) || NeedsGuard(binary.b);
      break;
    }
    case ExprKind::kCast:
      result = NeedsGuard(static_cast<const Cast&>(*expr).value);
      break;
    case ExprKind::kSelect: {
      const auto& select = static_cast<const Select&>(*expr);
      result = NeedsGuard(select.cond) || NeedsGuard(select.true_value) ||
               NeedsGuard(select.false_value);
      break;
    }
    case ExprKind::kRamp: {
      const auto& ramp = static_cast<const Ramp&>(*expr);
      result = NeedsGuard(ramp.base) || NeedsGuard(ramp.stride);
      break;
    }
    case ExprKind::kBroadcast:
      result = NeedsGuard(static_cast<const Broadcast&>(*expr).value);
      break;
    case ExprKind::kIntImm:
    case ExprKind::kFloatImm:
    case ExprKind::kVar:
      break;
  }
  needs_guard_[expr.get()] = result;
  return result;
}

}  // namespace tile_ir::cpu
