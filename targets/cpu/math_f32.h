// exp, exp2 and tanh of f32 values (scalars or vectors) in straight-line LLVM IR, so that a
// vector of them is a vector of instructions: LLVM lowers its exp/exp2 intrinsics on x86 to one
// libm call per lane, and tanh is libm's, which made every softmax, attention and GELU on the
// CPU run at the speed of scalar exp2f or tanhf (bench/results/cpu_2026-12-05_exp). Accuracy
// (against float64, over the whole range): exp and exp2 within 1.2e-7 relative error where the
// result is normal, within one denormal where it is not; overflow gives +inf, underflow 0, NaN
// stays NaN, exp2(+-inf) = +inf, 0; tanh within 1.4e-7 relative, +-1 beyond +-9.
#ifndef TARGETS_CPU_MATH_F32_H_
#define TARGETS_CPU_MATH_F32_H_

#include "llvm/IR/IRBuilder.h"

namespace tile_ir::cpu {

// 2^x: x = n + f with n = round(x) and f in [-1/2, 1/2] exactly; 2^f by a polynomial, 2^n by
// exponent bits.
llvm::Value* EmitExp2F32(llvm::IRBuilderBase& builder, llvm::Value* x);

// e^x: n = round(x log2(e)), r = x - n ln(2) in two parts (Cody and Waite), e^r by a
// polynomial, 2^n by exponent bits.
llvm::Value* EmitExpF32(llvm::IRBuilderBase& builder, llvm::Value* x);

// tanh(x): below |x| = 0.625, x + x^3 q(x^2) by a polynomial (where 1 - 2 / (e^2|x| + 1) would
// lose digits to cancellation); above it, that expression with EmitExpF32, its sign x's.
llvm::Value* EmitTanhF32(llvm::IRBuilderBase& builder, llvm::Value* x);

}  // namespace tile_ir::cpu

#endif  // TARGETS_CPU_MATH_F32_H_
