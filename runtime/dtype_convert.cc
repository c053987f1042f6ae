// One encoder and one decoder parameterized by the format's field widths;
// every narrow format is an instance.
#include "runtime/dtype_convert.h"

#include <algorithm>
#include <cmath>

namespace tile_ir::runtime {
namespace {

struct Format {
  int exponent_bits;
  int mantissa_bits;
  // IEEE-like: the all-ones exponent holds infinities and NaNs. Otherwise
  // (E4M3FN) only the all-ones pattern is NaN and there is no infinity.
  bool has_infinity;
  uint32_t quiet_nan;  // without the sign bit

  int bias() const { return (1 << (exponent_bits - 1)) - 1; }
  uint32_t sign_bit() const { return 1u << (exponent_bits + mantissa_bits); }
  uint32_t infinity() const { return ((1u << exponent_bits) - 1) << mantissa_bits; }
  // The first magnitude pattern that is not a finite number.
  uint32_t first_non_finite() const { return has_infinity ? infinity() : quiet_nan; }
};

constexpr Format kHalf{5, 10, true, 0x7E00};
constexpr Format kBFloat16{8, 7, true, 0x7FC0};
constexpr Format kF8E4M3{4, 3, false, 0x7F};
constexpr Format kF8E5M2{5, 2, true, 0x7E};

// Rounds a non-negative double to an integer, ties to even, whatever the
// floating-point environment's rounding mode is.
double RoundHalfEven(double x) {
  double floor = std::floor(x);
  double fraction = x - floor;  // exact: x and floor share the exponent range
  if (fraction > 0.5 || (fraction == 0.5 && std::fmod(floor, 2.0) != 0.0)) return floor + 1.0;
  return floor;
}

uint32_t Encode(double value, const Format& f) {
  uint32_t sign = std::signbit(value) ? f.sign_bit() : 0;
  if (std::isnan(value)) return sign | f.quiet_nan;
  double magnitude = std::fabs(value);
  if (std::isinf(magnitude)) return sign | (f.has_infinity ? f.infinity() : f.quiet_nan);
  if (magnitude == 0.0) return sign;

  // The spacing of representable values around `magnitude` is 2^(e - m), with
  // e the exponent of magnitude, clamped below at the smallest normal exponent
  // (subnormals are evenly spaced). Scaling by a power of two is exact, so
  // `units` counts that spacing exactly before rounding.
  const int min_exponent = 1 - f.bias();
  int exponent = std::max(std::ilogb(magnitude), min_exponent);
  double units = RoundHalfEven(std::ldexp(magnitude, f.mantissa_bits - exponent));
  // A normal value's units include the implicit leading one, 2^m, which is
  // exactly one step of the exponent field; subnormals have fewer units and
  // exponent field 0. A round-up to 2^(m+1) units carries into the exponent
  // field on its own (and the largest finite value carries into infinity).
  int64_t pattern = static_cast<int64_t>(units) +
                    (static_cast<int64_t>(exponent - min_exponent) << f.mantissa_bits);
  if (pattern >= f.first_non_finite()) {
    return sign | (f.has_infinity ? f.infinity() : f.quiet_nan);
  }
  return sign | static_cast<uint32_t>(pattern);
}

float Decode(uint32_t bits, const Format& f) {
  const uint32_t mantissa_mask = (1u << f.mantissa_bits) - 1;
  const uint32_t exponent_mask = (1u << f.exponent_bits) - 1;
  bool negative = (bits & f.sign_bit()) != 0;
  uint32_t exponent_field = (bits >> f.mantissa_bits) & exponent_mask;
  uint32_t mantissa = bits & mantissa_mask;
  double magnitude;
  if (f.has_infinity && exponent_field == exponent_mask) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else if (!f.has_infinity && (bits & ~f.sign_bit()) == f.quiet_nan) {
    magnitude = NAN;
  } else if (exponent_field == 0) {
    magnitude = std::ldexp(static_cast<double>(mantissa), 1 - f.bias() - f.mantissa_bits);
  } else {
    magnitude = std::ldexp(static_cast<double>(mantissa | (mantissa_mask + 1)),
                           static_cast<int>(exponent_field) - f.bias() - f.mantissa_bits);
  }
  return static_cast<float>(negative ? -magnitude : magnitude);
}

}  // namespace

uint16_t DoubleToHalf(double value) { return static_cast<uint16_t>(Encode(value, kHalf)); }
uint16_t DoubleToBFloat16(double value) { return static_cast<uint16_t>(Encode(value, kBFloat16)); }
uint8_t DoubleToF8E4M3(double value) { return static_cast<uint8_t>(Encode(value, kF8E4M3)); }
uint8_t DoubleToF8E5M2(double value) { return static_cast<uint8_t>(Encode(value, kF8E5M2)); }

uint16_t FloatToHalf(float value) { return DoubleToHalf(value); }
uint16_t FloatToBFloat16(float value) { return DoubleToBFloat16(value); }
uint8_t FloatToF8E4M3(float value) { return DoubleToF8E4M3(value); }
uint8_t FloatToF8E5M2(float value) { return DoubleToF8E5M2(value); }

float HalfToFloat(uint16_t bits) { return Decode(bits, kHalf); }
float BFloat16ToFloat(uint16_t bits) { return Decode(bits, kBFloat16); }
float F8E4M3ToFloat(uint8_t bits) { return Decode(bits, kF8E4M3); }
float F8E5M2ToFloat(uint8_t bits) { return Decode(bits, kF8E5M2); }

}  // namespace tile_ir::runtime
