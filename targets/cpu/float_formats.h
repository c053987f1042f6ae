// Bit-exact conversions for the float formats that the CPU target keeps in f32
// registers (bf16, f8e4m3, f8e5m2: LLVM 16 has no usable x86 lowering for them),
// emitted as integer IR that works lane by lane on scalars and vectors alike.
#ifndef TARGETS_CPU_FLOAT_FORMATS_H_
#define TARGETS_CPU_FLOAT_FORMATS_H_

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Value.h"
#include "tile_ir/dtype.h"

namespace tile_ir::cpu {

// Whether values of `type` live in f32 registers and in memory as their bits.
bool IsBitStoredFloat(ScalarType type);

// Stored bits (i16 for bf16, i8 for the fp8 formats) to the exact f32 value.
// f8e4m3 (the "fn" variant: bias 7, no infinities) decodes S.1111.111 as NaN;
// f8e5m2 follows IEEE (bias 15, infinities and NaNs).
llvm::Value* BitsToF32(llvm::IRBuilderBase& b, llvm::Value* bits, ScalarType type);

// An f32 value to the bits of `type`, rounding to nearest even. bf16 overflows
// to infinity; the fp8 formats saturate to their largest finite value (as
// CUDA's satfinite conversions do), infinities included. NaN stays NaN.
llvm::Value* F32ToBits(llvm::IRBuilderBase& b, llvm::Value* value, ScalarType type);

// An f32 value rounded to the nearest value of `type`, still as f32.
llvm::Value* RoundF32To(llvm::IRBuilderBase& b, llvm::Value* value, ScalarType type);

// f64 to f32 rounded to odd: narrowing that f32 again to a format of at most 22
// significand bits (f16, bf16, fp8) rounds as a direct f64 narrowing would,
// where plain f64 -> f32 -> f16 rounding can round twice the wrong way.
llvm::Value* F64ToF32RoundToOdd(llvm::IRBuilderBase& b, llvm::Value* value);

}  // namespace tile_ir::cpu

#endif  // TARGETS_CPU_FLOAT_FORMATS_H_
