// Types and conversions: how each dtype is held in registers and in memory
// (see kernel_emitter.h), and Cast with the rounding rules of each pair.
#include "llvm/IR/Constants.h"
#include "llvm/IR/Intrinsics.h"
#include "targets/cpu/float_formats.h"
#include "targets/cpu/kernel_emitter.h"

namespace tile_ir::cpu {
namespace {

bool IsZeroExtended(DataType type) { return type.is_unsigned() || type.is_bool(); }

// The same shape (scalar or N lanes) with another element type.
llvm::Type* WithElement(llvm::Type* shape, llvm::Type* element) {
  if (auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(shape)) {
    return llvm::FixedVectorType::get(element, vector->getNumElements());
  }
  return element;
}

}  // namespace

llvm::Type* KernelEmitter::RegisterType(DataType type) {
  llvm::Type* element = nullptr;
  switch (type.scalar()) {
    case ScalarType::kVoid:
      return builder_.getVoidTy();
    case ScalarType::kBool:
      element = builder_.getInt1Ty();
      break;
    case ScalarType::kI4:
      element = builder_.getIntNTy(4);
      break;
    case ScalarType::kI8:
    case ScalarType::kU8:
      element = builder_.getInt8Ty();
      break;
    case ScalarType::kI16:
    case ScalarType::kU16: element = builder_.getInt16Ty(); break;
    case ScalarType::kI32:
    case ScalarType::kU32: element = builder_.getInt32Ty(); break;
    case ScalarType::kI64:
    case ScalarType::kU64: element = builder_.getInt64Ty(); break;
    case ScalarType::kF16:
      element = builder_.getHalfTy();
      break;
    case ScalarType::kF8E4M3:
    case ScalarType::kF8E5M2:
    case ScalarType::kBF16:
    case ScalarType::kF32:
      element = builder_.getFloatTy();
      break;
    case ScalarType::kF64:
      element = builder_.getDoubleTy();
      break;
  }
  if (type.lanes() == 1) return element;
  return llvm::FixedVectorType::get(element, type.lanes());
}

llvm::Type* KernelEmitter::MemoryType(ScalarType type) {
  switch (type) {
    case ScalarType::kBool:
    case ScalarType::kI4:
    case ScalarType::kF8E4M3:
    case ScalarType::kF8E5M2:
      return builder_.getInt8Ty();
    case ScalarType::kBF16:
      return builder_.getInt16Ty();
    default:
      return RegisterType(DataType(type));
  }
}

llvm::Value* KernelEmitter::FromMemory(llvm::Value* value, DataType type) {
  if (type.is_bool()) {
    return builder_.CreateICmpNE(value, llvm::Constant::getNullValue(value->getType()));
  }
  if (IsBitStoredFloat(type.scalar())) return BitsToF32(builder_, value, type.scalar());
  return value;
}

llvm::Value* KernelEmitter::ToMemory(llvm::Value* value, DataType type) {
  if (type.is_bool()) {
    return builder_.CreateZExt(value, WithElement(value->getType(), builder_.getInt8Ty()));
  }
  if (IsBitStoredFloat(type.scalar())) return F32ToBits(builder_, value, type.scalar());
  return value;
}

llvm::Value* KernelEmitter::FloatToF32(llvm::Value* value, DataType from) {
  llvm::Type* f32 = WithElement(value->getType(), builder_.getFloatTy());
  switch (from.scalar()) {
    case ScalarType::kF16:
      return builder_.CreateFPExt(value, f32);
    default:
      return value;  // f32 and the formats held in f32
  }
}

llvm::Value* KernelEmitter::F32ToFloat(llvm::Value* value, DataType to) {
  switch (to.scalar()) {
    case ScalarType::kF16:
      return builder_.CreateFPTrunc(value, RegisterType(to));
    case ScalarType::kF64:
      return builder_.CreateFPExt(value, RegisterType(to));
    case ScalarType::kF32:
      return value;
    default:
      return RoundF32To(builder_, value, to.scalar());
  }
}

llvm::Value* KernelEmitter::IntToI64(llvm::Value* value, DataType from) {
  llvm::Type* i64 = WithElement(value->getType(), builder_.getInt64Ty());
  return IsZeroExtended(from) ? builder_.CreateZExt(value, i64) : builder_.CreateSExt(value, i64);
}

llvm::Value* KernelEmitter::EmitCast(llvm::Value* value, DataType from, DataType to) {
  if (from.scalar() == to.scalar()) return value;
  llvm::Type* target = RegisterType(to);
  if (to.is_bool()) {
    llvm::Value* zero = llvm::Constant::getNullValue(value->getType());
    // As in C: any non-zero value, NaN included, is true.
    return from.is_float() ? builder_.CreateFCmpUNE(value, zero)
                           : builder_.CreateICmpNE(value, zero);
  }
  if (from.is_float() && to.is_float()) {
    if (to.scalar() == ScalarType::kF64)
      return builder_.CreateFPExt(FloatToF32(value, from), target);
    if (from.scalar() != ScalarType::kF64) return F32ToFloat(FloatToF32(value, from), to);
    if (to.scalar() == ScalarType::kF32) return builder_.CreateFPTrunc(value, target);
    return F32ToFloat(F64ToF32RoundToOdd(builder_, value), to);
  }
  if (from.is_float()) {
    // Saturating conversions (NaN gives 0): defined for every input, and what
    // CUDA's cvt.rzi instructions do.
    llvm::Value* source = from.scalar() == ScalarType::kF64 ? value : FloatToF32(value, from);
    llvm::Intrinsic::ID id =
        to.is_unsigned() ? llvm::Intrinsic::fptoui_sat : llvm::Intrinsic::fptosi_sat;
    return builder_.CreateIntrinsic(id, {target, source->getType()}, {source});
  }
  if (to.is_float()) {
    bool zext = IsZeroExtended(from);
    if (to.scalar() == ScalarType::kF32 || to.scalar() == ScalarType::kF64) {
      return zext ? builder_.CreateUIToFP(value, target) : builder_.CreateSIToFP(value, target);
    }
    // Through f64, exact for every integer type but i64 and u64, then one rounding.
    llvm::Type* f64 = WithElement(value->getType(), builder_.getDoubleTy());
    llvm::Value* wide =
        zext ? builder_.CreateUIToFP(value, f64) : builder_.CreateSIToFP(value, f64);
    return EmitCast(wide, DataType(ScalarType::kF64, from.lanes()), to);
  }
  unsigned from_bits = value->getType()->getScalarSizeInBits();
  unsigned to_bits = target->getScalarSizeInBits();
  if (to_bits < from_bits) return builder_.CreateTrunc(value, target);
  if (to_bits == from_bits) return value;  // i8 <-> u8 keep their bits
  return IsZeroExtended(from) ? builder_.CreateZExt(value, target)
                              : builder_.CreateSExt(value, target);
}

}  // namespace tile_ir::cpu
