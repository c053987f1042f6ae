// exp, exp2, tanh, log, log2 and erf of f32 values as straight-line IR (see math_f32.h).
#include "targets/cpu/math_f32.h"

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <utility>

#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"

namespace tile_ir::cpu {
namespace {

// Polynomials p with p(0) = 1 fitted here to 2^f on [-1/2, 1/2] and to e^r on
// [-ln(2)/2, ln(2)/2] by least squares on the relative error, reweighted until its largest
// values even out (a minimax approximation), degree 6, the coefficients rounded to f32.
// Evaluated in f32 by Horner's rule, each within 1.0e-7 of the function (0.84 ulp).
constexpr float kExp2Poly[] = {1.0f,
                               0.6931471824645996f,
                               0.24022647738456726f,
                               0.055503323674201965f,
                               0.00961843691766262f,
                               0.0013398875016719103f,
                               0.00015353361959569156f};
constexpr float kExpPoly[] = {1.0f,
                              1.0f,
                              0.4999999403953552f,
                              0.16666431725025177f,
                              0.04166800156235695f,
                              0.00837415549904108f,
                              0.0013843653723597527f};

llvm::Value* Constant(llvm::Type* type, double value) { return llvm::ConstantFP::get(type, value); }

// tanh(x) = x + x^3 q(x^2) on [-0.625, 0.625], q fitted the same way to the relative error of
// tanh, degree 4.
constexpr float kTanhPoly[] = {-0.3333328068256378f, 0.13331441581249237f, -0.05373971536755562f,
                               0.02063908614218235f, -0.005704985000193119f};
constexpr double kTanhSmall = 0.625;

// log(1 + f) = f - f^2/2 + f^3 p(f) on [sqrt(1/2) - 1, sqrt(2) - 1], p fitted the same way to the
// relative error of log(1 + f), degree 7: within 1.25e-7 evaluated in f32.
constexpr float kLogPoly[] = {0.3333333134651184f,   -0.2500081956386566f, 0.2000121921300888f,
                              -0.16623404622077942f, 0.14201974868774414f, -0.13159917294979095f,
                              0.12759903073310852f,  -0.07633113861083984f};
// erf(x) = x p(x^2) below |x| = 0.9 (degree 5), and 1 - e^(-x^2) q(u), u = (|x| - 2.41) / 1.51,
// up to 3.92, q fitted to erfc(x) e^(x^2) (degree 10; erfc below 0.2 there, so q's 2e-7 is 5e-8
// of erf); erf rounds to 1 beyond. Within 1.8e-7 evaluated in f32.
constexpr float kErfSmallPoly[] = {1.1283791065216064f,   -0.3761252462863922f,
                                   0.11282142251729965f,  -0.026778968051075935f,
                                   0.005012053996324539f, -0.0006090842070989311f};
constexpr float kErfcScaledPoly[] = {
    0.217705637216568f,    -0.1193479672074318f,     0.06207292154431343f,  -0.03081250749528408f,
    0.014683336019515991f, -0.006793302018195391f,   0.002997901290655136f, -0.0011582025326788425f,
    0.000500406720675528f, -0.00033438560785725713f, 0.0001249936321983114f};
constexpr double kErfSmall = 0.9;

// sin(r) = r + r^3 s(r^2) and cos(r) = 1 - r^2/2 + r^4 c(r^2) on [-pi/4, pi/4], fitted the same
// way (degree 2 each): within 7.1e-8 and 1.1e-7 evaluated in f32.
constexpr float kSinPoly[] = {-0.16666655242443085f, 0.008332162164151669f,
                              -0.0001951545273186639f};
constexpr float kCosPoly[] = {0.04166664555668831f, -0.0013887317618355155f,
                              2.443328412482515e-05f};
// pi/2 in three f32 parts (each the rounding of what the ones before leave), for r = x - k pi/2
// with one fma each: exact enough for |k| < 2^16 (kSinCosFastBound).
constexpr double kHalfPi1 = 1.5707963705062866;
constexpr double kHalfPi2 = -4.371138828673793e-08;
constexpr double kHalfPi3 = -1.7151245100058819e-15;
constexpr double kErfOne = 3.92;
// The bits of 2/pi after the binary point (bit j weighs 2^-j), most significant first in
// 32-bit words behind one zero word: stream position j + 31. 224 bits reach the largest f32
// exponent with 96 to spare (ReduceLarge). Computed here from Machin's formula for pi.
constexpr uint32_t kTwoOverPiBits[] = {0x00000000, 0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0,
                                       0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561};
// pi/2 * 2^-62: a 62-bit fixed-point fraction of a quadrant, in radians.
constexpr double kHalfPiOver2To62 = 1.5707963267948966 / 4611686018427387904.0;

template <size_t N>
llvm::Value* Horner(llvm::IRBuilderBase& b, const float (&coefficients)[N], llvm::Value* x) {
  llvm::Type* type = x->getType();
  llvm::Value* result = Constant(type, coefficients[N - 1]);
  for (int k = static_cast<int>(N) - 2; k >= 0; --k) {
    result = b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {type},
                               {result, x, Constant(type, coefficients[k])});
  }
  return result;
}

// p * 2^n for an integral n in [-150, 129]: two factors 2^h and 2^(n - h), h = n >> 1, each a
// normal f32 built from its exponent bits, so that results below 2^-126 round once, in the
// last multiplication, and those above 2^127 overflow to +inf there.
llvm::Value* Scale(llvm::IRBuilderBase& b, llvm::Value* p, llvm::Value* n) {
  llvm::Type* type = p->getType();
  llvm::Type* int_type = b.getInt32Ty();
  if (auto* vector = llvm::dyn_cast<llvm::VectorType>(type)) {
    int_type = llvm::VectorType::get(int_type, vector->getElementCount());
  }
  llvm::Value* whole = b.CreateFPToSI(n, int_type);
  llvm::Value* half = b.CreateAShr(whole, llvm::ConstantInt::get(int_type, 1));
  auto power = [&](llvm::Value* exponent) {
    llvm::Value* biased = b.CreateAdd(exponent, llvm::ConstantInt::get(int_type, 127));
    return b.CreateBitCast(b.CreateShl(biased, llvm::ConstantInt::get(int_type, 23)), type);
  };
  llvm::Value* scaled = b.CreateFMul(p, power(half));
  return b.CreateFMul(scaled, power(b.CreateSub(whole, half)));
}

// `x` clamped to [lo, hi]; NaN becomes hi (minnum and maxnum return the number), so that the
// integer conversion after it is defined; the caller puts the NaN back.
llvm::Value* Clamp(llvm::IRBuilderBase& b, llvm::Value* x, double lo, double hi) {
  llvm::Type* type = x->getType();
  llvm::Value* below = b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, x, Constant(type, hi));
  return b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, below, Constant(type, lo));
}

llvm::Value* KeepNan(llvm::IRBuilderBase& b, llvm::Value* x, llvm::Value* result) {
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, result);
}

llvm::Type* IntTypeLike(llvm::IRBuilderBase& b, llvm::Type* type) {
  llvm::Type* int_type = b.getInt32Ty();
  if (auto* vector = llvm::dyn_cast<llvm::VectorType>(type)) {
    int_type = llvm::VectorType::get(int_type, vector->getElementCount());
  }
  return int_type;
}

// `scalar` with `like`'s lanes (a vector type where `like` is one).
llvm::Type* Like(llvm::Type* scalar, llvm::Type* like) {
  if (auto* vector = llvm::dyn_cast<llvm::VectorType>(like)) {
    return llvm::VectorType::get(scalar, vector->getElementCount());
  }
  return scalar;
}

// kTwoOverPiBits[index] (i32; a gather for a vector of indices), the table a private constant
// of the module.
llvm::Value* TwoOverPiWord(llvm::IRBuilderBase& b, llvm::Value* index) {
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  constexpr const char* kName = "tl.two_over_pi_bits";
  llvm::GlobalVariable* table = module.getNamedGlobal(kName);
  if (table == nullptr) {
    llvm::Constant* bits =
        llvm::ConstantDataArray::get(module.getContext(), llvm::ArrayRef<uint32_t>(kTwoOverPiBits));
    table = new llvm::GlobalVariable(module, bits->getType(), /*isConstant=*/true,
                                     llvm::GlobalValue::PrivateLinkage, bits, kName);
    table->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  }
  llvm::Value* address = b.CreateInBoundsGEP(b.getInt32Ty(), table, index);
  if (index->getType()->isVectorTy()) {
    return b.CreateMaskedGather(Like(b.getInt32Ty(), index->getType()), address, llvm::Align(4));
  }
  return b.CreateLoad(b.getInt32Ty(), address);
}

// x = (n + r / (pi/2)) pi/2 for any finite x (Payne and Hanek's reduction, without a branch):
// with x = m 2^p (m the 24-bit significand), x 2/pi mod 4 needs only the bits of 2/pi from
// 2^-(p-1) on, as p's multiples of 4 vanish. 96 of them times m, in 64-bit integer pieces,
// give x 2/pi mod 4 as a 64-bit fixed-point number with 62 fraction bits: n is its nearest
// integer (mod 4), r its remainder times pi/2, in f64 then rounded to f32. The sign is x's.
// Lanes with infinities or NaN come out as garbage: the caller replaces them.
std::pair<llvm::Value*, llvm::Value*> ReduceLarge(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Type* type = x->getType();
  llvm::Type* i32 = Like(b.getInt32Ty(), type);
  llvm::Type* i64 = Like(b.getInt64Ty(), type);
  auto c32 = [&](int64_t v) { return llvm::ConstantInt::get(i32, v); };
  auto c64 = [&](uint64_t v) { return llvm::ConstantInt::get(i64, v); };
  llvm::Value* bits = b.CreateBitCast(x, i32);
  llvm::Value* negative = b.CreateICmpSLT(bits, c32(0));
  llvm::Value* exponent = b.CreateAnd(b.CreateLShr(bits, c32(23)), c32(0xff));
  llvm::Value* significand = b.CreateOr(b.CreateAnd(bits, c32(0x7fffff)), c32(0x800000));
  // p = exponent - 150, at least -30 so that the first word read is the table's (the lanes
  // that small take the other reduction); the window starts at stream position p + 30.
  llvm::Value* p = b.CreateSub(exponent, c32(150));
  p = b.CreateSelect(b.CreateICmpSLT(p, c32(-30)), c32(-30), p);
  llvm::Value* position = b.CreateAdd(p, c32(30));
  llvm::Value* word = b.CreateLShr(position, c32(5));
  llvm::Value* shift = b.CreateZExt(b.CreateAnd(position, c32(31)), i64);
  llvm::Value* words[4];
  for (int k = 0; k < 4; ++k) {
    words[k] = b.CreateZExt(TwoOverPiWord(b, b.CreateAdd(word, c32(k))), i64);
  }
  // The window's three 32-bit pieces t0 > t1 > t2: bits shift.. of each pair of words.
  llvm::Value* t[3];
  for (int k = 0; k < 3; ++k) {
    llvm::Value* pair = b.CreateOr(b.CreateShl(words[k], c64(32)), words[k + 1]);
    t[k] = b.CreateLShr(b.CreateShl(pair, shift), c64(32));
  }
  // m T mod 2^96, bits 32..95: (m t0 << 32) + m t1 + (m t2 >> 32), wrapping mod 2^64.
  llvm::Value* m = b.CreateZExt(significand, i64);
  llvm::Value* fixed =
      b.CreateAdd(b.CreateAdd(b.CreateShl(b.CreateMul(m, t[0]), c64(32)), b.CreateMul(m, t[1])),
                  b.CreateLShr(b.CreateMul(m, t[2]), c64(32)));
  llvm::Value* n = b.CreateLShr(b.CreateAdd(fixed, c64(uint64_t{1} << 61)), c64(62));
  llvm::Value* fraction = b.CreateSub(fixed, b.CreateShl(n, c64(62)));  // in [-2^61, 2^61)
  llvm::Type* f64 = Like(b.getDoubleTy(), type);
  llvm::Value* r = b.CreateFMul(b.CreateSIToFP(fraction, f64), Constant(f64, kHalfPiOver2To62));
  llvm::Value* quadrant = b.CreateTrunc(n, i32);
  quadrant = b.CreateSelect(negative, b.CreateNeg(quadrant), quadrant);
  r = b.CreateSelect(negative, b.CreateFNeg(r), r);
  return {quadrant, b.CreateFPTrunc(r, type)};
}

// x = 2^e (1 + f) with f in [sqrt(1/2) - 1, sqrt(2) - 1] for a positive finite x (denormals
// scaled by 2^23 first), e as f32 (exact), and log(1 + f) by kLogPoly.
std::pair<llvm::Value*, llvm::Value*> LogParts(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Type* type = x->getType();
  llvm::Type* int_type = IntTypeLike(b, type);
  auto int_constant = [&](int64_t v) { return llvm::ConstantInt::get(int_type, v); };
  llvm::Value* tiny = b.CreateFCmpOLT(x, Constant(type, 0x1p-126));
  llvm::Value* scaled = b.CreateSelect(tiny, b.CreateFMul(x, Constant(type, 0x1p23)), x);
  llvm::Value* bits = b.CreateBitCast(scaled, int_type);
  llvm::Value* exponent =
      b.CreateSub(b.CreateLShr(bits, int_constant(23)), int_constant(127));  // sign bit 0
  llvm::Value* mantissa = b.CreateBitCast(
      b.CreateOr(b.CreateAnd(bits, int_constant(0x007fffff)), int_constant(0x3f800000)), type);
  llvm::Value* above = b.CreateFCmpOGT(mantissa, Constant(type, 1.4142135623730951));
  mantissa = b.CreateSelect(above, b.CreateFMul(mantissa, Constant(type, 0.5)), mantissa);
  exponent = b.CreateAdd(exponent, b.CreateZExt(above, int_type));
  exponent = b.CreateSub(exponent, b.CreateSelect(tiny, int_constant(23), int_constant(0)));
  llvm::Value* f = b.CreateFSub(mantissa, Constant(type, 1.0));  // exact
  // f - f^2/2 + f^3 p(f) = f + f^2 (f p(f) - 1/2)
  llvm::Value* inner = b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {type},
                                         {f, Horner(b, kLogPoly, f), Constant(type, -0.5)});
  llvm::Value* log1p =
      b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {type}, {b.CreateFMul(f, f), inner, f});
  return {b.CreateSIToFP(exponent, type), log1p};
}

// log's or log2's value at 0 (-inf), below 0 (NaN), at +inf (+inf) and at NaN (the NaN).
llvm::Value* LogSpecials(llvm::IRBuilderBase& b, llvm::Value* x, llvm::Value* result) {
  llvm::Type* type = x->getType();
  const double inf = std::numeric_limits<double>::infinity();
  result = b.CreateSelect(b.CreateFCmpOEQ(x, Constant(type, inf)), Constant(type, inf), result);
  result = b.CreateSelect(b.CreateFCmpOEQ(x, Constant(type, 0.0)), Constant(type, -inf), result);
  result = b.CreateSelect(b.CreateFCmpOLT(x, Constant(type, 0.0)),
                          Constant(type, std::numeric_limits<double>::quiet_NaN()), result);
  return KeepNan(b, x, result);
}

}  // namespace

llvm::Value* EmitExp2F32(llvm::IRBuilderBase& b, llvm::Value* x) {
  // 2^128 overflows and 2^-150 rounds to 0: beyond them the result no longer changes.
  llvm::Value* clamped = Clamp(b, x, -150.0, 128.0);
  llvm::Value* n = b.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, clamped);
  llvm::Value* f = b.CreateFSub(clamped, n);  // exact
  return KeepNan(b, x, Scale(b, Horner(b, kExp2Poly, f), n));
}

llvm::Value* EmitExpF32(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Type* type = x->getType();
  // e^89 overflows and e^-104 is below half the smallest denormal.
  llvm::Value* clamped = Clamp(b, x, -104.0, 89.0);
  llvm::Value* n = b.CreateUnaryIntrinsic(
      llvm::Intrinsic::roundeven, b.CreateFMul(clamped, Constant(type, 1.4426950408889634)));
  // ln(2) = kLn2High + kLn2Low, kLn2High with 9 significant bits: n * kLn2High is exact for
  // |n| < 2^15, and so is its difference from x near it.
  constexpr double kLn2High = 0.693359375;
  constexpr double kLn2Low = -2.12194440054690583e-4;
  llvm::Value* r = b.CreateFSub(clamped, b.CreateFMul(n, Constant(type, kLn2High)));
  r = b.CreateFSub(r, b.CreateFMul(n, Constant(type, kLn2Low)));
  return KeepNan(b, x, Scale(b, Horner(b, kExpPoly, r), n));
}

llvm::Value* EmitLogF32(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Type* type = x->getType();
  auto [exponent, log1p] = LogParts(b, x);
  // e ln(2) in two parts (kLn2High's 9 bits make e * kLn2High exact), the small one first.
  constexpr double kLn2High = 0.693359375;
  constexpr double kLn2Low = -2.12194440054690583e-4;
  llvm::Value* low = b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {type},
                                       {exponent, Constant(type, kLn2Low), log1p});
  llvm::Value* result = b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {type},
                                          {exponent, Constant(type, kLn2High), low});
  return LogSpecials(b, x, result);
}

llvm::Value* EmitLog2F32(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Type* type = x->getType();
  auto [exponent, log1p] = LogParts(b, x);
  llvm::Value* result = b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {type},
                                          {log1p, Constant(type, 1.4426950408889634), exponent});
  return LogSpecials(b, x, result);
}

llvm::Value* EmitErfF32(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Type* type = x->getType();
  llvm::Value* magnitude = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  llvm::Value* square = b.CreateFMul(magnitude, magnitude);
  llvm::Value* small = b.CreateFMul(magnitude, Horner(b, kErfSmallPoly, square));
  // e^(-x^2) with x^2 = hi + lo (lo from an fma), e^(-hi) (1 - lo): the rounding of x^2 would
  // otherwise cost up to 4e-7 of e^(-x^2) at |x| = 3.9.
  llvm::Value* bounded =
      b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, magnitude, Constant(type, kErfOne));
  llvm::Value* hi = b.CreateFMul(bounded, bounded);
  llvm::Value* lo =
      b.CreateIntrinsic(llvm::Intrinsic::fma, {type}, {bounded, bounded, b.CreateFNeg(hi)});
  llvm::Value* decay =
      b.CreateFMul(EmitExpF32(b, b.CreateFNeg(hi)), b.CreateFSub(Constant(type, 1.0), lo));
  llvm::Value* u =
      b.CreateFMul(b.CreateFSub(bounded, Constant(type, 2.41)), Constant(type, 1.0 / 1.51));
  llvm::Value* large =
      b.CreateIntrinsic(llvm::Intrinsic::fmuladd, {type},
                        {b.CreateFNeg(decay), Horner(b, kErfcScaledPoly, u), Constant(type, 1.0)});
  llvm::Value* result =
      b.CreateSelect(b.CreateFCmpOLT(magnitude, Constant(type, kErfSmall)), small,
                     b.CreateSelect(b.CreateFCmpOLT(magnitude, Constant(type, kErfOne)), large,
                                    Constant(type, 1.0)));
  return KeepNan(b, x, b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, result, x));
}

llvm::Value* EmitSinCosF32(llvm::IRBuilderBase& b, llvm::Value* x, bool cosine) {
  llvm::Type* type = x->getType();
  llvm::Type* int_type = IntTypeLike(b, type);
  auto fma = [&](llvm::Value* a, llvm::Value* m, llvm::Value* c) {
    return b.CreateIntrinsic(llvm::Intrinsic::fma, {type}, {a, m, c});
  };
  // Up to kSinCosFastBound: k = round(x 2/pi) and r = x - k pi/2 with pi/2 in three parts,
  // x clamped so that the conversion is defined for any lane. Beyond: ReduceLarge. Both are
  // computed for every lane and one taken: no branch, so a scalar loop of them vectorizes.
  llvm::Value* bounded = Clamp(b, x, -kSinCosFastBound, kSinCosFastBound);
  llvm::Value* k = b.CreateUnaryIntrinsic(
      llvm::Intrinsic::roundeven, b.CreateFMul(bounded, Constant(type, 0.6366197723675814)));
  llvm::Value* minus_k = b.CreateFNeg(k);
  llvm::Value* r = fma(minus_k, Constant(type, kHalfPi1), bounded);
  r = fma(minus_k, Constant(type, kHalfPi2), r);
  r = fma(minus_k, Constant(type, kHalfPi3), r);
  llvm::Value* quadrant = b.CreateFPToSI(k, int_type);
  llvm::Value* magnitude = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  llvm::Value* large = b.CreateFCmpOGT(magnitude, Constant(type, kSinCosFastBound));
  auto [large_quadrant, large_r] = ReduceLarge(b, x);
  quadrant = b.CreateSelect(large, large_quadrant, quadrant);
  r = b.CreateSelect(large, large_r, r);
  llvm::Value* t = b.CreateFMul(r, r);
  llvm::Value* sin_r = fma(b.CreateFMul(r, t), Horner(b, kSinPoly, t), r);
  llvm::Value* cos_r = fma(b.CreateFMul(t, t), Horner(b, kCosPoly, t),
                           fma(t, Constant(type, -0.5), Constant(type, 1.0)));
  // The quadrant k mod 4 (cos: one more): 0 sin r, 1 cos r, 2 -sin r, 3 -cos r.
  if (cosine) quadrant = b.CreateAdd(quadrant, llvm::ConstantInt::get(int_type, 1));
  llvm::Value* odd = b.CreateICmpNE(b.CreateAnd(quadrant, llvm::ConstantInt::get(int_type, 1)),
                                    llvm::ConstantInt::get(int_type, 0));
  llvm::Value* negate = b.CreateICmpNE(b.CreateAnd(quadrant, llvm::ConstantInt::get(int_type, 2)),
                                       llvm::ConstantInt::get(int_type, 0));
  llvm::Value* value = b.CreateSelect(odd, cos_r, sin_r);
  value = b.CreateSelect(negate, b.CreateFNeg(value), value);
  if (!cosine) {
    // sin(x) rounds to x below 2^-12, and -0 stays -0 (the reduction's r would be +0).
    value = b.CreateSelect(b.CreateFCmpOLT(magnitude, Constant(type, 0x1p-12)), x, value);
  }
  // Infinities and NaN give NaN (x - x).
  llvm::Value* finite =
      b.CreateFCmpOLT(magnitude, Constant(type, std::numeric_limits<double>::infinity()));
  return b.CreateSelect(finite, value, b.CreateFSub(x, x));
}

llvm::Value* EmitTanhF32(llvm::IRBuilderBase& b, llvm::Value* x) {
  llvm::Type* type = x->getType();
  llvm::Value* magnitude = b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x);
  // Near zero: x + x * (x^2 q(x^2)), which keeps x's own digits.
  llvm::Value* square = b.CreateFMul(x, x);
  llvm::Value* small = b.CreateIntrinsic(
      llvm::Intrinsic::fmuladd, {type}, {x, b.CreateFMul(square, Horner(b, kTanhPoly, square)), x});
  // Beyond: 1 - 2 / (e^2|x| + 1), with |x| at most 9 (tanh(9) rounds to 1; so do +-inf).
  llvm::Value* bounded =
      b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, magnitude, Constant(type, 9.0));
  llvm::Value* e = EmitExpF32(b, b.CreateFMul(bounded, Constant(type, 2.0)));
  llvm::Value* large = b.CreateFSub(
      Constant(type, 1.0), b.CreateFDiv(Constant(type, 2.0), b.CreateFAdd(e, Constant(type, 1.0))));
  large = b.CreateBinaryIntrinsic(llvm::Intrinsic::copysign, large, x);
  llvm::Value* result =
      b.CreateSelect(b.CreateFCmpOLT(magnitude, Constant(type, kTanhSmall)), small, large);
  return KeepNan(b, x, result);
}

}  // namespace tile_ir::cpu
