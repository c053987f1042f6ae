// Integer IR sequences for bf16 and fp8 conversions (see float_formats.h).
#include "targets/cpu/float_formats.h"

#include <cmath>
#include <cstdint>

#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"

namespace tile_ir::cpu {
namespace {

// An fp8 layout: exponent and mantissa widths, bias, the largest finite value.
struct Fp8Format {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  uint32_t max_finite_f32_bits;  // that value as f32 bits
  uint32_t max_finite_code;
};

Fp8Format FormatOf(ScalarType type) {
  if (type == ScalarType::kF8E4M3) return {4, 3, 7, 0x43E00000u /* 448 */, 0x7E};
  return {5, 2, 15, 0x47600000u /* 57344 */, 0x7B};
}

// The integer (or integer vector) type of `bits` bits shaped like `like`.
llvm::Type* IntLike(llvm::Value* like, unsigned bits) {
  llvm::Type* element = llvm::IntegerType::get(like->getContext(), bits);
  if (auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(like->getType())) {
    return llvm::FixedVectorType::get(element, vector->getNumElements());
  }
  return element;
}

llvm::Type* F32Like(llvm::Value* like) {
  llvm::Type* element = llvm::Type::getFloatTy(like->getContext());
  if (auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(like->getType())) {
    return llvm::FixedVectorType::get(element, vector->getNumElements());
  }
  return element;
}

llvm::Value* Bf16ToF32(llvm::IRBuilderBase& b, llvm::Value* bits) {
  llvm::Type* i32 = IntLike(bits, 32);
  llvm::Value* wide = b.CreateShl(b.CreateZExt(bits, i32), llvm::ConstantInt::get(i32, 16));
  return b.CreateBitCast(wide, F32Like(bits));
}

llvm::Value* F32ToBf16(llvm::IRBuilderBase& b, llvm::Value* value) {
  llvm::Type* i32 = IntLike(value, 32);
  auto c = [&](uint32_t v) { return llvm::ConstantInt::get(i32, v); };
  llvm::Value* u = b.CreateBitCast(value, i32);
  llvm::Value* is_nan = b.CreateICmpUGT(b.CreateAnd(u, c(0x7FFFFFFF)), c(0x7F800000));
  llvm::Value* lsb = b.CreateAnd(b.CreateLShr(u, c(16)), c(1));
  llvm::Value* rounded = b.CreateLShr(b.CreateAdd(b.CreateAdd(u, c(0x7FFF)), lsb), c(16));
  // A NaN keeps its sign and top payload bits and is made quiet.
  llvm::Value* nan = b.CreateOr(b.CreateLShr(u, c(16)), c(0x40));
  return b.CreateTrunc(b.CreateSelect(is_nan, nan, rounded), IntLike(value, 16));
}

llvm::Value* Fp8ToF32(llvm::IRBuilderBase& b, llvm::Value* bits, ScalarType type) {
  Fp8Format f = FormatOf(type);
  llvm::Type* i32 = IntLike(bits, 32);
  auto c = [&](uint32_t v) { return llvm::ConstantInt::get(i32, v); };
  llvm::Value* x = b.CreateZExt(bits, i32);
  llvm::Value* sign = b.CreateShl(b.CreateAnd(x, c(0x80)), c(24));
  llvm::Value* e = b.CreateAnd(b.CreateLShr(x, c(f.mantissa_bits)), c((1u << f.exponent_bits) - 1));
  llvm::Value* m = b.CreateAnd(x, c((1u << f.mantissa_bits) - 1));
  llvm::Value* normal = b.CreateOr(b.CreateShl(b.CreateAdd(e, c(127 - f.bias)), c(23)),
                                   b.CreateShl(m, c(23 - f.mantissa_bits)));
  // Subnormals are m quanta of 2^(1 - bias - mantissa_bits); the product is exact.
  llvm::Value* quantum =
      llvm::ConstantFP::get(F32Like(bits), std::ldexp(1.0, 1 - f.bias - f.mantissa_bits));
  llvm::Value* subnormal =
      b.CreateBitCast(b.CreateFMul(b.CreateUIToFP(m, F32Like(bits)), quantum), i32);
  llvm::Value* magnitude = b.CreateSelect(b.CreateICmpEQ(e, c(0)), subnormal, normal);
  if (type == ScalarType::kF8E4M3) {
    llvm::Value* nan = b.CreateICmpEQ(b.CreateAnd(x, c(0x7F)), c(0x7F));
    magnitude = b.CreateSelect(nan, c(0x7FC00000), magnitude);
  } else {
    // Exponent 31: infinity for mantissa 0, NaN otherwise.
    llvm::Value* special = b.CreateICmpEQ(e, c(31));
    magnitude =
        b.CreateSelect(special, b.CreateOr(c(0x7F800000), b.CreateShl(m, c(21))), magnitude);
  }
  return b.CreateBitCast(b.CreateOr(magnitude, sign), F32Like(bits));
}

// Rounding at the integer level, as in half-precision conversions that
// re-bias the exponent and round the mantissa with a carry into the exponent.
llvm::Value* F32ToFp8(llvm::IRBuilderBase& b, llvm::Value* value, ScalarType type) {
  Fp8Format f = FormatOf(type);
  llvm::Type* i32 = IntLike(value, 32);
  auto c = [&](uint32_t v) { return llvm::ConstantInt::get(i32, v); };
  const int shift = 23 - f.mantissa_bits;
  llvm::Value* u = b.CreateBitCast(value, i32);
  llvm::Value* sign = b.CreateAnd(b.CreateLShr(u, c(24)), c(0x80));
  llvm::Value* a = b.CreateAnd(u, c(0x7FFFFFFF));
  llvm::Value* is_nan = b.CreateICmpUGT(a, c(0x7F800000));
  llvm::Value* saturate = b.CreateICmpUGE(a, c(f.max_finite_f32_bits));
  llvm::Value* below_normal = b.CreateICmpULT(a, c(static_cast<uint32_t>(128 - f.bias) << 23));
  // Below the smallest normal, adding 2^(24 - mantissa_bits - bias) makes the
  // FPU round to a multiple of the subnormal quantum (nearest even); the low
  // bits of the sum are then the code.
  uint32_t magic_bits = static_cast<uint32_t>((127 - f.bias) + shift + 1) << 23;
  llvm::Value* magic = b.CreateBitCast(c(magic_bits), F32Like(value));
  llvm::Value* sum = b.CreateFAdd(b.CreateBitCast(a, F32Like(value)), magic);
  llvm::Value* subnormal = b.CreateSub(b.CreateBitCast(sum, i32), c(magic_bits));
  llvm::Value* odd = b.CreateAnd(b.CreateLShr(a, c(shift)), c(1));
  llvm::Value* rebiased =
      b.CreateAdd(a, c((static_cast<uint32_t>(f.bias - 127) << 23) + ((1u << (shift - 1)) - 1)));
  llvm::Value* normal = b.CreateLShr(b.CreateAdd(rebiased, odd), c(shift));
  llvm::Value* code = b.CreateSelect(below_normal, subnormal, normal);
  code = b.CreateSelect(saturate, c(f.max_finite_code), code);
  code = b.CreateSelect(is_nan, c(0x7F), code);
  return b.CreateTrunc(b.CreateOr(code, sign), IntLike(value, 8));
}

}  // namespace

bool IsBitStoredFloat(ScalarType type) {
  return type == ScalarType::kBF16 || type == ScalarType::kF8E4M3 || type == ScalarType::kF8E5M2;
}

llvm::Value* BitsToF32(llvm::IRBuilderBase& b, llvm::Value* bits, ScalarType type) {
  return type == ScalarType::kBF16 ? Bf16ToF32(b, bits) : Fp8ToF32(b, bits, type);
}

llvm::Value* F32ToBits(llvm::IRBuilderBase& b, llvm::Value* value, ScalarType type) {
  return type == ScalarType::kBF16 ? F32ToBf16(b, value) : F32ToFp8(b, value, type);
}

llvm::Value* RoundF32To(llvm::IRBuilderBase& b, llvm::Value* value, ScalarType type) {
  return BitsToF32(b, F32ToBits(b, value, type), type);
}

llvm::Value* F64ToF32RoundToOdd(llvm::IRBuilderBase& b, llvm::Value* value) {
  llvm::Type* f32 = F32Like(value);
  llvm::Type* i32 = IntLike(value, 32);
  llvm::Value* nearest = b.CreateFPTrunc(value, f32);
  llvm::Value* back = b.CreateFPExt(nearest, value->getType());
  llvm::Value* inexact = b.CreateFCmpONE(back, value);
  // Round to nearest may have moved away from zero; step back one ulp toward
  // zero (the bits are sign-magnitude) to get the truncation, then set the
  // sticky last bit. An overflow to infinity steps back to the largest float.
  llvm::Value* zero = llvm::ConstantFP::get(value->getType(), 0.0);
  llvm::Value* away = b.CreateSelect(b.CreateFCmpOGT(value, zero), b.CreateFCmpOGT(back, value),
                                     b.CreateFCmpOLT(back, value));
  llvm::Value* bits = b.CreateBitCast(nearest, i32);
  llvm::Value* truncated =
      b.CreateSelect(away, b.CreateSub(bits, llvm::ConstantInt::get(i32, 1)), bits);
  llvm::Value* odd = b.CreateOr(truncated, llvm::ConstantInt::get(i32, 1));
  return b.CreateBitCast(b.CreateSelect(inexact, odd, bits), f32);
}

}  // namespace tile_ir::cpu
