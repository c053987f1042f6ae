// exp, exp2, tanh, log, log2 and erf of f32 values (scalars or vectors) in straight-line LLVM
// IR, so that a vector of them is a vector of instructions: LLVM lowers its exp/exp2/log
// intrinsics on x86 to one libm call per lane, and tanh and erf are libm's, which made every
// softmax, attention and GELU on the CPU run at the speed of scalar exp2f or tanhf
// (bench/results/cpu_2026-12-05_exp). Accuracy (against float64, over the whole range): exp and
// exp2 within 1.2e-7 relative error where the result is normal, within one denormal where it is
// not; overflow gives +inf, underflow 0, NaN stays NaN, exp2(+-inf) = +inf, 0; tanh within
// 1.4e-7 relative, +-1 beyond +-9; log within 1.3e-7 and log2 within 2e-7 relative (denormal
// inputs included), -inf at 0, NaN below, +inf at +inf; erf within 1.8e-7 relative, +-1 beyond
// +-3.92; sin and cos within 1.5e-7 relative for every finite x, NaN at infinities.
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

// log(x) and log2(x): x = 2^e (1 + f), f in [sqrt(1/2) - 1, sqrt(2) - 1], log(1 + f) by a
// polynomial, e ln(2) in two parts (log2: e + log(1 + f) log2(e)).
llvm::Value* EmitLogF32(llvm::IRBuilderBase& builder, llvm::Value* x);
llvm::Value* EmitLog2F32(llvm::IRBuilderBase& builder, llvm::Value* x);

// erf(x): x p(x^2) below |x| = 0.9; 1 - e^(-x^2) q(|x|) up to 3.92 (e^(-x^2) from x^2 in two
// parts); 1 beyond; the sign x's.
llvm::Value* EmitErfF32(llvm::IRBuilderBase& builder, llvm::Value* x);

// sin(x) (cos(x) with `cosine`): r = x - k pi/2, for |x| <= kSinCosFastBound with pi/2 in three
// parts (Cody and Waite, one fma each), beyond it from the bits of 2/pi that matter at x's
// exponent (Payne and Hanek, in 64-bit integers), both without a branch; sin or cos of r by a
// polynomial after k mod 4.
inline constexpr double kSinCosFastBound = 65536.0;
llvm::Value* EmitSinCosF32(llvm::IRBuilderBase& builder, llvm::Value* x, bool cosine);

// tanh(x): below |x| = 0.625, x + x^3 q(x^2) by a polynomial (where 1 - 2 / (e^2|x| + 1) would
// lose digits to cancellation); above it, that expression with EmitExpF32, its sign x's.
llvm::Value* EmitTanhF32(llvm::IRBuilderBase& builder, llvm::Value* x);

}  // namespace tile_ir::cpu

#endif  // TARGETS_CPU_MATH_F32_H_
