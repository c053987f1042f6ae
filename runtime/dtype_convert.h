// Bit-exact conversions between the wide float types and the narrow float
// formats (f16, bf16, f8e4m3, f8e5m2), rounding to nearest even, host side.
//
// Conventions: NaN inputs become the format's canonical quiet NaN with the
// input's sign (f16 0x7E00, bf16 0x7FC0, f8e4m3 0x7F, f8e5m2 0x7E). f8e4m3 is
// OCP's E4M3FN: no infinities, largest finite value 448, NaN is S.1111.111;
// values that round beyond 448 (and infinities) become NaN, no saturation.
// f16, bf16 and f8e5m2 overflow to infinity as IEEE formats do.
#ifndef RUNTIME_DTYPE_CONVERT_H_
#define RUNTIME_DTYPE_CONVERT_H_

#include <cstdint>

namespace tile_ir::runtime {

// From double, rounded once: converting a double through float first would
// round twice and can differ in the last bit.
uint16_t DoubleToHalf(double value);
uint16_t DoubleToBFloat16(double value);
uint8_t DoubleToF8E4M3(double value);
uint8_t DoubleToF8E5M2(double value);

// From float (every float is a double, so these round once too).
uint16_t FloatToHalf(float value);
uint16_t FloatToBFloat16(float value);
uint8_t FloatToF8E4M3(float value);
uint8_t FloatToF8E5M2(float value);

// Exact: every value of these formats is a float.
float HalfToFloat(uint16_t bits);
float BFloat16ToFloat(uint16_t bits);
float F8E4M3ToFloat(uint8_t bits);
float F8E5M2ToFloat(uint8_t bits);

}  // namespace tile_ir::runtime

#endif  // RUNTIME_DTYPE_CONVERT_H_
