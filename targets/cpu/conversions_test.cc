// Bit-level checks of the generated conversions (f16, bf16, fp8, i4, u8,
// bool, saturating float -> int) at their boundary values, against references
// written from the formats' definitions.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "targets/cpu/cpu_codegen.h"
#include "targets/cpu/cpu_test_util.h"
#include "targets/cpu/float_reference.h"

namespace tile_ir::cpu {
namespace {

using test_util::Bf16Value;
using test_util::Fp8Value;
using test_util::HalfValue;
using test_util::NearestBf16;
using test_util::NearestFp8;
using test_util::NearestHalf;
using test_util::RunGrid;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

class ConversionTest : public ::testing::Test {
 protected:
  BlockFn Load(const std::string& file, const std::string& kernel) {
    return loader_.Load(file, kernel);
  }

  test_util::KernelLoader loader_;
};

// Values at the edges of every narrow format: extremes, overflow thresholds,
// subnormals, rounding ties (both parities) and their neighbours.
std::vector<double> BoundaryValues() {
  std::vector<double> v = {0.0,
                           -0.0,
                           1.0,
                           -1.0,
                           kInf,
                           -kInf,
                           kNaN,
                           0.1,
                           -3.3,
                           1e-30,
                           1e30,
                           65504.0,
                           65519.0,
                           65520.0,
                           65536.0,
                           448.0,
                           464.0,
                           465.0,
                           480.0,
                           57344.0,
                           61440.0,
                           61441.0,
                           3.3895313892515355e38,
                           3.4e38};
  for (int e = -26; e <= 18; ++e) {
    double p = std::ldexp(1.0, e);
    // Ties at every precision (2^-k past a power of two), both parities.
    for (int bits = 1; bits <= 12; ++bits) {
      double tie = p * (1.0 + std::ldexp(1.0, -bits));
      double odd_tie = p * (1.0 + 3 * std::ldexp(1.0, -bits));
      v.insert(v.end(), {tie, -tie, odd_tie, std::nextafter(tie, 0.0), std::nextafter(tie, kInf)});
    }
  }
  // fp8 midpoints between neighbouring codes, exhaustively.
  for (ScalarType format : {ScalarType::kF8E4M3, ScalarType::kF8E5M2}) {
    for (int code = 0; code < 0x7B; ++code) {
      double mid = (Fp8Value(code, format) + Fp8Value(code + 1, format)) / 2;
      v.insert(v.end(), {mid, -mid, std::nextafter(mid, 0.0), std::nextafter(mid, kInf)});
    }
  }
  std::mt19937 random(7);
  for (int i = 0; i < 2000; ++i) {
    v.push_back(std::ldexp(std::uniform_real_distribution<double>(-1, 1)(random),
                           std::uniform_int_distribution<int>(-30, 20)(random)));
  }
  return v;
}

bool SameFp8(uint8_t a, uint8_t b, ScalarType format) {
  return (std::isnan(Fp8Value(a, format)) && std::isnan(Fp8Value(b, format))) || a == b;
}

TEST_F(ConversionTest, F32ToHalfBf16AndFp8RoundToNearestEven) {
  BlockFn kernel = Load("conversions.tile", "f32_to_narrow");
  ASSERT_NE(kernel, nullptr);
  std::vector<float> x;
  for (double value : BoundaryValues()) x.push_back(static_cast<float>(value));
  int32_t n = static_cast<int32_t>(x.size());
  std::vector<uint16_t> half(n), bf16(n);
  std::vector<uint8_t> e4(n), e5(n);
  RunGrid(kernel, {x.data(), half.data(), bf16.data(), e4.data(), e5.data(), &n}, 1);
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE(::testing::Message() << "x = " << x[i]);
    if (std::isnan(x[i])) {
      EXPECT_TRUE(std::isnan(HalfValue(half[i])));
      EXPECT_TRUE(std::isnan(Bf16Value(bf16[i])));
    } else {
      EXPECT_EQ(half[i], NearestHalf(x[i]));
      EXPECT_EQ(bf16[i], NearestBf16(x[i]));
    }
    EXPECT_TRUE(SameFp8(e4[i], NearestFp8(x[i], ScalarType::kF8E4M3), ScalarType::kF8E4M3))
        << int{e4[i]};
    EXPECT_TRUE(SameFp8(e5[i], NearestFp8(x[i], ScalarType::kF8E5M2), ScalarType::kF8E5M2))
        << int{e5[i]};
  }
}

TEST_F(ConversionTest, F64NarrowsWithOneRounding) {
  BlockFn kernel = Load("conversions.tile", "f64_to_narrow");
  ASSERT_NE(kernel, nullptr);
  std::vector<double> x = BoundaryValues();
  // Just above a half-precision tie: rounding to f32 first would land on the
  // tie and then round to even, the wrong way.
  x.push_back(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40));
  x.push_back(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40));
  x.push_back(-(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)));
  x.push_back(1e300);
  int32_t n = static_cast<int32_t>(x.size());
  std::vector<float> f(n);
  std::vector<uint16_t> half(n), bf16(n);
  std::vector<uint8_t> e4(n);
  RunGrid(kernel, {x.data(), f.data(), half.data(), bf16.data(), e4.data(), &n}, 1);
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE(::testing::Message() << "x = " << x[i]);
    if (std::isnan(x[i])) continue;
    EXPECT_EQ(f[i], static_cast<float>(x[i]));
    EXPECT_EQ(half[i], NearestHalf(x[i]));
    EXPECT_EQ(bf16[i], NearestBf16(x[i]));
    EXPECT_EQ(e4[i], NearestFp8(x[i], ScalarType::kF8E4M3));
  }
}

TEST_F(ConversionTest, NarrowFormatsDecodeExactlyForEveryCode) {
  BlockFn kernel = Load("conversions.tile", "narrow_to_f32");
  ASSERT_NE(kernel, nullptr);
  int32_t n = 65536;
  std::vector<uint16_t> codes(n);
  std::vector<uint8_t> bytes(n);
  for (int i = 0; i < n; ++i) {
    codes[i] = static_cast<uint16_t>(i);
    bytes[i] = static_cast<uint8_t>(i);
  }
  std::vector<float> out(4 * n);
  std::vector<double> wide(n);
  RunGrid(kernel,
          {codes.data(), codes.data(), bytes.data(), bytes.data(), out.data(), wide.data(), &n}, 1);
  auto same = [](double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; };
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(same(out[i], HalfValue(codes[i]))) << "f16 " << i;
    ASSERT_TRUE(same(wide[i], HalfValue(codes[i]))) << "f16 -> f64 " << i;
    ASSERT_TRUE(same(out[n + i], Bf16Value(codes[i]))) << "bf16 " << i;
    ASSERT_TRUE(same(out[2 * n + i], Fp8Value(bytes[i], ScalarType::kF8E4M3))) << "e4m3 " << i;
    ASSERT_TRUE(same(out[3 * n + i], Fp8Value(bytes[i], ScalarType::kF8E5M2))) << "e5m2 " << i;
    // Signed zeros keep their sign.
    if (out[i] == 0) ASSERT_EQ(std::signbit(out[i]), std::signbit(HalfValue(codes[i])));
  }
}

TEST_F(ConversionTest, VectorConversionsMatchScalarOnes) {
  BlockFn kernel = Load("conversions.tile", "vector_round_trip");
  ASSERT_NE(kernel, nullptr);
  std::vector<float> x(64);
  for (int i = 0; i < 64; ++i) x[i] = std::ldexp(1.0f + i / 64.0f, i % 20 - 12) * (i % 3 ? 1 : -1);
  std::vector<uint16_t> bf16(64);
  std::vector<uint8_t> e4(64);
  std::vector<float> back(128);
  RunGrid(kernel, {x.data(), bf16.data(), e4.data(), back.data()}, 8);
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(bf16[i], NearestBf16(x[i])) << i;
    EXPECT_EQ(e4[i], NearestFp8(x[i], ScalarType::kF8E4M3)) << i;
    EXPECT_EQ(back[i], Bf16Value(bf16[i]));
    EXPECT_EQ(back[64 + i], Fp8Value(e4[i], ScalarType::kF8E4M3));
  }
}

TEST_F(ConversionTest, FloatToIntSaturatesAndNaNGivesZero) {
  BlockFn kernel = Load("conversions.tile", "float_to_int");
  ASSERT_NE(kernel, nullptr);
  std::vector<float> x = {2.7f, -2.7f, 3e9f,  -3e9f, NAN,  300.0f, -5.0f,    254.9f,
                          9.0f, -9.0f, -3.5f, 1e19f, 0.0f, -0.0f,  INFINITY, -INFINITY};
  int32_t n = static_cast<int32_t>(x.size());
  std::vector<int32_t> i32(n);
  std::vector<uint8_t> u8(n), i4((n + 1) / 2), flags(n);
  std::vector<int64_t> i64(n);
  RunGrid(kernel, {x.data(), i32.data(), u8.data(), i4.data(), i64.data(), flags.data(), &n}, 1);
  auto nibble = [&](int i) { return ((i4[i / 2] >> (4 * (i % 2))) & 15) ^ 8; };
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE(::testing::Message() << "x = " << x[i]);
    double t = std::isnan(x[i]) ? 0.0 : std::trunc(double{x[i]});
    auto clamp = [&](double lo, double hi) { return std::min(std::max(t, lo), hi); };
    EXPECT_EQ(i32[i], static_cast<int32_t>(clamp(INT32_MIN, INT32_MAX)));
    EXPECT_EQ(u8[i], static_cast<uint8_t>(clamp(0, 255)));
    EXPECT_EQ(nibble(i) - 8, static_cast<int>(clamp(-8, 7)));
    int64_t wide = t >= 0x1p63 ? INT64_MAX : t <= -0x1p63 ? INT64_MIN : static_cast<int64_t>(t);
    EXPECT_EQ(i64[i], wide);
    EXPECT_EQ(flags[i], x[i] != 0.0f ? 1 : 0);  // NaN is true, as in C
  }
}

TEST_F(ConversionTest, IntegerWideningNarrowingAndToFloat) {
  BlockFn kernel = Load("conversions.tile", "int_to_other");
  ASSERT_NE(kernel, nullptr);
  std::vector<int32_t> i32 = {0, 1, -1, 200, 16777217, -16777219, 2147483647, 9, -9, 156};
  int32_t n = static_cast<int32_t>(i32.size());
  std::vector<uint8_t> u8(n);
  std::vector<int8_t> s8(n);
  for (int i = 0; i < n; ++i) {
    u8[i] = static_cast<uint8_t>(250 - 20 * i);
    s8[i] = static_cast<int8_t>(-128 + 29 * i);
  }
  std::vector<int32_t> out(3 * n);
  std::vector<float> f(2 * n);
  std::vector<uint16_t> bf16(n);
  std::vector<uint8_t> i4((n + 1) / 2);
  RunGrid(kernel,
          {i32.data(), u8.data(), s8.data(), out.data(), f.data(), bf16.data(), i4.data(), &n}, 1);
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(out[i], u8[i]);
    EXPECT_EQ(out[n + i], s8[i]);
    EXPECT_EQ(out[2 * n + i], static_cast<uint8_t>(static_cast<uint8_t>(i32[i]) + 100));
    EXPECT_EQ(f[i], static_cast<float>(u8[i]));
    EXPECT_EQ(f[n + i], static_cast<float>(i32[i]));
    EXPECT_EQ(bf16[i], NearestBf16(i32[i])) << i32[i];
    int nibble = (i4[i / 2] >> (4 * (i % 2))) & 15;
    EXPECT_EQ(nibble, i32[i] & 15);
  }
}

TEST_F(ConversionTest, PackedI4AndBoolVectors) {
  BlockFn kernel = Load("conversions.tile", "packed_vectors");
  ASSERT_NE(kernel, nullptr);
  std::vector<uint8_t> packed(16), copy(16), flags(32);
  for (int i = 0; i < 16; ++i) packed[i] = static_cast<uint8_t>(i * 37 + 11);
  std::vector<int32_t> out(32);
  RunGrid(kernel, {packed.data(), out.data(), flags.data(), copy.data()}, 4);
  auto get = [](const std::vector<uint8_t>& bytes, int i) {
    return (((bytes[i / 2] >> (4 * (i % 2))) & 15) ^ 8) - 8;
  };
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(out[i], get(packed, i)) << i;
    EXPECT_EQ(flags[i], get(packed, i) < 0 ? 1 : 0) << i;
    EXPECT_EQ(get(copy, 31 - i), ((get(packed, i) + 1 + 8) & 15) - 8) << i;
  }
}

TEST_F(ConversionTest, NarrowArithmeticRoundsOncePerOperation) {
  BlockFn kernel = Load("conversions.tile", "narrow_arithmetic");
  ASSERT_NE(kernel, nullptr);
  std::mt19937 random(11);
  std::uniform_real_distribution<double> dist(-300, 300);
  int32_t n = 500;
  std::vector<uint16_t> a(n), b(n), c(n), d(n), sum(n), prod(n);
  std::vector<uint8_t> e(n), esum(n);
  for (int i = 0; i < n; ++i) {
    a[i] = NearestBf16(dist(random));
    b[i] = NearestBf16(dist(random) / 512);
    c[i] = NearestHalf(dist(random));
    d[i] = NearestHalf(dist(random));
    e[i] = static_cast<uint8_t>(i);
  }
  RunGrid(
      kernel,
      {a.data(), b.data(), c.data(), d.data(), sum.data(), prod.data(), e.data(), esum.data(), &n},
      1);
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(sum[i], NearestBf16(double{Bf16Value(a[i])} + Bf16Value(b[i]))) << i;
    EXPECT_EQ(prod[i], NearestHalf(double{HalfValue(c[i])} * HalfValue(d[i]))) << i;
    double twice = 2 * Fp8Value(e[i], ScalarType::kF8E4M3);
    EXPECT_TRUE(SameFp8(esum[i], NearestFp8(twice, ScalarType::kF8E4M3), ScalarType::kF8E4M3)) << i;
  }
}

}  // namespace
}  // namespace tile_ir::cpu
