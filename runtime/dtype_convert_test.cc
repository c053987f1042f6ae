// Conversions checked exhaustively: every bit pattern round-trips, every tie
// between neighbouring values rounds to the even one, and random values agree
// with independent oracles (the compiler's _Float16, the bf16 bit trick, and a
// brute-force nearest-value search for f8).
#include "runtime/dtype_convert.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace tile_ir::runtime {
namespace {

// One narrow format seen through its conversion functions.
struct FormatUnderTest {
  const char* name;
  int total_bits;
  uint32_t (*from_double)(double);
  uint32_t (*from_float)(float);
  float (*to_float)(uint32_t);
  uint32_t canonical_nan;
};

const std::vector<FormatUnderTest>& AllFormats() {
  static const std::vector<FormatUnderTest> formats = {
      {"f16", 16, [](double v) -> uint32_t { return DoubleToHalf(v); },
       [](float v) -> uint32_t { return FloatToHalf(v); },
       [](uint32_t b) { return HalfToFloat(static_cast<uint16_t>(b)); }, 0x7E00},
      {"bf16", 16, [](double v) -> uint32_t { return DoubleToBFloat16(v); },
       [](float v) -> uint32_t { return FloatToBFloat16(v); },
       [](uint32_t b) { return BFloat16ToFloat(static_cast<uint16_t>(b)); }, 0x7FC0},
      {"f8e4m3", 8, [](double v) -> uint32_t { return DoubleToF8E4M3(v); },
       [](float v) -> uint32_t { return FloatToF8E4M3(v); },
       [](uint32_t b) { return F8E4M3ToFloat(static_cast<uint8_t>(b)); }, 0x7F},
      {"f8e5m2", 8, [](double v) -> uint32_t { return DoubleToF8E5M2(v); },
       [](float v) -> uint32_t { return FloatToF8E5M2(v); },
       [](uint32_t b) { return F8E5M2ToFloat(static_cast<uint8_t>(b)); }, 0x7E},
  };
  return formats;
}

uint32_t SignBit(const FormatUnderTest& f) { return 1u << (f.total_bits - 1); }

TEST(DtypeConvertTest, KnownHalfValues) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3C00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xC000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7BFF);
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7C00);  // the tie above the largest value goes to inf
  EXPECT_EQ(FloatToHalf(65519.99f), 0x7BFF);
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(FloatToHalf(std::ldexp(1.0f, -25)), 0x0000);  // tie with zero: even
  EXPECT_EQ(FloatToHalf(std::ldexp(3.0f, -26)), 0x0001);
  EXPECT_EQ(FloatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalf(1.0f / 3.0f), 0x3555);
  EXPECT_EQ(FloatToHalf(-INFINITY), 0xFC00);
  EXPECT_EQ(FloatToHalf(-NAN), 0xFE00);
  EXPECT_EQ(HalfToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(HalfToFloat(0x7BFF), 65504.0f);
  EXPECT_TRUE(std::isinf(HalfToFloat(0x7C00)));
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7C01)));
}

TEST(DtypeConvertTest, KnownBFloat16Values) {
  EXPECT_EQ(FloatToBFloat16(1.0f), 0x3F80);
  EXPECT_EQ(FloatToBFloat16(3.14159265f), 0x4049);
  EXPECT_EQ(FloatToBFloat16(1.0f + std::ldexp(1.0f, -8)), 0x3F80);        // tie: even
  EXPECT_EQ(FloatToBFloat16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3F82);    // tie: even
  EXPECT_EQ(FloatToBFloat16(std::numeric_limits<float>::max()), 0x7F80);  // rounds to inf
  EXPECT_EQ(FloatToBFloat16(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(FloatToBFloat16(std::ldexp(1.0f, -133)), 0x0001);
  EXPECT_EQ(BFloat16ToFloat(0x4049), 3.140625f);
  EXPECT_EQ(BFloat16ToFloat(0x0001), std::ldexp(1.0f, -133));
}

TEST(DtypeConvertTest, KnownF8E4M3Values) {
  EXPECT_EQ(FloatToF8E4M3(1.0f), 0x38);
  EXPECT_EQ(FloatToF8E4M3(448.0f), 0x7E);
  EXPECT_EQ(FloatToF8E4M3(-448.0f), 0xFE);
  EXPECT_EQ(FloatToF8E4M3(464.0f), 0x7E);  // tie between 448 and the NaN slot: even
  EXPECT_EQ(FloatToF8E4M3(465.0f), 0x7F);  // beyond the range: NaN, no saturation
  EXPECT_EQ(FloatToF8E4M3(INFINITY), 0x7F);
  EXPECT_EQ(FloatToF8E4M3(-INFINITY), 0xFF);
  EXPECT_EQ(FloatToF8E4M3(std::ldexp(1.0f, -9)), 0x01);
  EXPECT_EQ(FloatToF8E4M3(std::ldexp(1.0f, -6)), 0x08);
  EXPECT_EQ(FloatToF8E4M3(std::ldexp(1.0f, -10)), 0x00);
  EXPECT_EQ(FloatToF8E4M3(-0.0f), 0x80);
  EXPECT_EQ(F8E4M3ToFloat(0x7E), 448.0f);
  EXPECT_EQ(F8E4M3ToFloat(0x78), 256.0f);
  EXPECT_TRUE(std::isnan(F8E4M3ToFloat(0x7F)));
  EXPECT_TRUE(std::isnan(F8E4M3ToFloat(0xFF)));
}

TEST(DtypeConvertTest, KnownF8E5M2Values) {
  EXPECT_EQ(FloatToF8E5M2(1.0f), 0x3C);
  EXPECT_EQ(FloatToF8E5M2(57344.0f), 0x7B);
  EXPECT_EQ(FloatToF8E5M2(61440.0f), 0x7C);  // tie above the largest value: inf
  EXPECT_EQ(FloatToF8E5M2(61439.0f), 0x7B);
  EXPECT_EQ(FloatToF8E5M2(std::ldexp(1.0f, -16)), 0x01);
  EXPECT_EQ(FloatToF8E5M2(NAN), 0x7E);
  EXPECT_EQ(FloatToF8E5M2(-INFINITY), 0xFC);
  EXPECT_TRUE(std::isinf(F8E5M2ToFloat(0x7C)));
  EXPECT_TRUE(std::isnan(F8E5M2ToFloat(0x7D)));
  EXPECT_EQ(F8E5M2ToFloat(0x01), std::ldexp(1.0f, -16));
}

TEST(DtypeConvertTest, EveryBitPatternRoundTrips) {
  for (const FormatUnderTest& f : AllFormats()) {
    for (uint32_t bits = 0; bits < (1u << f.total_bits); ++bits) {
      float value = f.to_float(bits);
      uint32_t sign = bits & SignBit(f);
      uint32_t want = std::isnan(value) ? (sign | f.canonical_nan) : bits;
      ASSERT_EQ(f.from_float(value), want) << f.name << " bits 0x" << std::hex << bits;
      ASSERT_EQ(f.from_double(value), want) << f.name << " bits 0x" << std::hex << bits;
      ASSERT_EQ(std::signbit(value), sign != 0) << f.name << " bits 0x" << std::hex << bits;
    }
  }
}

TEST(DtypeConvertTest, EveryTieRoundsToEvenAndNeighboursToTheNearest) {
  for (const FormatUnderTest& f : AllFormats()) {
    for (uint32_t bits = 0; bits + 1 < SignBit(f); ++bits) {
      double lo = f.to_float(bits);
      double hi = f.to_float(bits + 1);
      if (!std::isfinite(lo) || !std::isfinite(hi)) break;  // positive values are increasing
      double mid = (lo + hi) / 2;  // exact: one more bit than the format has
      uint32_t even = (bits % 2 == 0) ? bits : bits + 1;
      for (double sign : {1.0, -1.0}) {
        uint32_t s = sign < 0 ? SignBit(f) : 0;
        ASSERT_EQ(f.from_double(sign * mid), s | even) << f.name << " mid " << sign * mid;
        ASSERT_EQ(f.from_float(static_cast<float>(sign * mid)), s | even) << f.name;
        ASSERT_EQ(f.from_double(sign * std::nextafter(mid, 0.0)), s | bits) << f.name;
        ASSERT_EQ(f.from_double(sign * std::nextafter(mid, INFINITY)), s | (bits + 1)) << f.name;
        ASSERT_EQ(f.from_float(sign * std::nextafter(static_cast<float>(mid), 0.0f)), s | bits)
            << f.name;
      }
    }
  }
}

// The compiler's own conversion (x86 SSE2 software or F16C) as an oracle.
uint16_t CompilerHalf(double value) {
  _Float16 h = static_cast<_Float16>(value);
  uint16_t bits;
  std::memcpy(&bits, &h, sizeof bits);
  return bits;
}

TEST(DtypeConvertTest, HalfAgreesWithTheCompilersConversion) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-30, 18);
  for (int i = 0; i < 2000000; ++i) {
    double value = std::ldexp(mantissa(rng), exponent(rng)) * (i % 2 ? -1 : 1);
    ASSERT_EQ(DoubleToHalf(value), CompilerHalf(value)) << value;
    float as_float = static_cast<float>(value);
    ASSERT_EQ(FloatToHalf(as_float), CompilerHalf(as_float)) << as_float;
  }
}

TEST(DtypeConvertTest, BFloat16AgreesWithTheBitTrickOnRandomFloats) {
  std::mt19937 rng(2);
  for (int i = 0; i < 2000000; ++i) {
    uint32_t bits = rng();
    float value;
    std::memcpy(&value, &bits, sizeof value);
    if (std::isnan(value)) continue;
    // Adding 0x7FFF plus the lowest kept bit rounds half to even in the integer domain.
    uint16_t want = static_cast<uint16_t>((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
    ASSERT_EQ(FloatToBFloat16(value), want) << std::hex << bits;
  }
}

// Brute force: the nearest of all finite values, the even pattern on a tie,
// with the value one step past the largest standing for overflow.
uint32_t NearestF8(double value, const FormatUnderTest& f, double past_largest,
                   uint32_t overflow_bits) {
  uint32_t best = 0;
  double best_error = INFINITY;
  uint32_t magnitude_count = SignBit(f);
  for (uint32_t bits = 0; bits < magnitude_count; ++bits) {
    double candidate = f.to_float(bits);
    bool overflow = !std::isfinite(candidate);
    if (overflow) candidate = past_largest;
    double error = std::fabs(std::fabs(value) - candidate);
    if (error < best_error || (error == best_error && bits % 2 == 0)) {
      best = overflow ? overflow_bits : bits;
      best_error = error;
    }
    if (overflow) break;
  }
  return (value < 0 ? SignBit(f) : 0) | best;
}

TEST(DtypeConvertTest, F8AgreesWithBruteForceNearest) {
  const FormatUnderTest& e4m3 = AllFormats()[2];
  const FormatUnderTest& e5m2 = AllFormats()[3];
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-20, 17);
  for (int i = 0; i < 200000; ++i) {
    double value = std::ldexp(mantissa(rng), exponent(rng)) * (i % 2 ? -1 : 1);
    ASSERT_EQ(DoubleToF8E4M3(value), NearestF8(value, e4m3, 480.0, 0x7F)) << value;
    ASSERT_EQ(DoubleToF8E5M2(value), NearestF8(value, e5m2, 65536.0, 0x7C)) << value;
  }
}

}  // namespace
}  // namespace tile_ir::runtime
