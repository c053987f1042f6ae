// Definition-based reference conversions (float_reference.h).
#include "targets/cpu/float_reference.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace tile_ir::cpu::test_util {
namespace {

// Of two candidates around x, the nearer; on a tie, the one whose code is even.
template <typename Code>
Code Nearer(double x, Code low, double low_value, Code high, double high_value) {
  double to_low = std::fabs(x - low_value);
  double to_high = std::fabs(high_value - x);
  if (to_low < to_high) return low;
  if (to_high < to_low) return high;
  return (low & 1) == 0 ? low : high;
}

}  // namespace

float Bf16Value(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

uint16_t NearestBf16(double x) {
  if (std::isnan(x)) return 0x7FC0;
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  double magnitude = std::fabs(x);
  // Walk the positive codes, which are ordered like their values.
  uint16_t low = 0;
  for (int step = 1 << 14; step > 0; step >>= 1) {
    uint16_t candidate = low + step;
    if (candidate <= 0x7F80 && Bf16Value(candidate) <= magnitude) low = candidate;
  }
  if (low == 0x7F80) return sign | low;
  uint16_t high = low + 1;
  // Beyond the largest finite value, round as if the next exponent existed.
  double high_value = high == 0x7F80 ? std::ldexp(1.0, 128) : Bf16Value(high);
  return sign | Nearer<uint16_t>(magnitude, low, Bf16Value(low), high, high_value);
}

double Fp8Value(uint8_t code, ScalarType format) {
  const bool e4m3 = format == ScalarType::kF8E4M3;
  const int mantissa_bits = e4m3 ? 3 : 2;
  const int bias = e4m3 ? 7 : 15;
  const int exponent_max = e4m3 ? 15 : 31;
  double sign = (code & 0x80) ? -1.0 : 1.0;
  int exponent = (code & 0x7F) >> mantissa_bits;
  int mantissa = code & ((1 << mantissa_bits) - 1);
  if (e4m3 && exponent == exponent_max && mantissa == (1 << mantissa_bits) - 1) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (!e4m3 && exponent == exponent_max) {
    return mantissa == 0 ? sign * std::numeric_limits<double>::infinity()
                         : std::numeric_limits<double>::quiet_NaN();
  }
  if (exponent == 0) return sign * std::ldexp(mantissa, 1 - bias - mantissa_bits);
  return sign * std::ldexp(1.0 + std::ldexp(mantissa, -mantissa_bits), exponent - bias);
}

uint8_t NearestFp8(double x, ScalarType format) {
  if (std::isnan(x)) return 0x7F;
  const uint8_t max_code = format == ScalarType::kF8E4M3 ? 0x7E : 0x7B;
  uint8_t sign = std::signbit(x) ? 0x80 : 0;
  double magnitude = std::fabs(x);
  if (magnitude >= Fp8Value(max_code, format)) return sign | max_code;
  uint8_t low = 0;
  while (low + 1 <= max_code && Fp8Value(low + 1, format) <= magnitude) ++low;
  uint8_t high = low + 1;
  return sign |
         Nearer<uint8_t>(magnitude, low, Fp8Value(low, format), high, Fp8Value(high, format));
}

uint16_t NearestHalf(double x) {
  _Float16 half = static_cast<_Float16>(x);
  uint16_t bits;
  std::memcpy(&bits, &half, sizeof(bits));
  return bits;
}

float HalfValue(uint16_t bits) {
  _Float16 half;
  std::memcpy(&half, &bits, sizeof(half));
  return static_cast<float>(half);
}

}  // namespace tile_ir::cpu::test_util
