// Reference conversions for tests, written from the formats' definitions
// (not from the code generator's bit tricks): decoding by the value formula
// and encoding by searching for the nearest representable value.
#ifndef TARGETS_CPU_FLOAT_REFERENCE_H_
#define TARGETS_CPU_FLOAT_REFERENCE_H_

#include <cstdint>

#include "tile_ir/dtype.h"

namespace tile_ir::cpu::test_util {

// The value of bf16 bits.
float Bf16Value(uint16_t bits);
// The bf16 nearest to x (ties to an even last bit); overflow gives infinity,
// NaN a NaN.
uint16_t NearestBf16(double x);

// The value of an fp8 code (f8e4m3 "fn": no infinities, S.1111.111 is NaN;
// f8e5m2: IEEE-like).
double Fp8Value(uint8_t code, ScalarType format);
// The fp8 code nearest to x (ties to an even code), saturating to the largest
// finite value beyond it (infinities included); NaN gives a NaN code.
uint8_t NearestFp8(double x, ScalarType format);

// Half-precision bits of x rounded once to nearest even (GCC's _Float16).
uint16_t NearestHalf(double x);
float HalfValue(uint16_t bits);

}  // namespace tile_ir::cpu::test_util

#endif  // TARGETS_CPU_FLOAT_REFERENCE_H_
