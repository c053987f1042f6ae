// The integer division family on negative operands and zero divisors (i32,
// u8, i8, vectors; variable and constant divisors), min and max, xor, and the
// math intrinsics on f32, f64, f16 and bf16.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "absl/base/casts.h"
#include "gtest/gtest.h"
#include "targets/cpu/cpu_codegen.h"
#include "targets/cpu/cpu_test_util.h"
#include "targets/cpu/float_reference.h"

namespace tile_ir::cpu {
namespace {

using test_util::Bf16Value;
using test_util::HalfValue;
using test_util::NearestBf16;
using test_util::NearestHalf;
using test_util::RunGrid;

class ArithmeticTest : public ::testing::Test {
 protected:
  BlockFn Load(const std::string& file, const std::string& kernel) {
    return loader_.Load(file, kernel);
  }

  test_util::KernelLoader loader_;
};

// C semantics plus the target's totality rules: x / 0 = 0, x % 0 = x, MIN / -1 wraps.
struct Division {
  int64_t q, r, floor_q, floor_r, ceil_q;
};

Division Divide(int64_t a, int64_t b, int64_t bits) {
  if (b == 0) return {0, a, 0, a, 0};
  int64_t q = a / b, r = a % b;
  int64_t floor_q = q - ((r != 0 && (r < 0) != (b < 0)) ? 1 : 0);
  int64_t floor_r = r + ((r != 0 && (r < 0) != (b < 0)) ? b : 0);
  int64_t ceil_q = q + ((r != 0 && (r < 0) == (b < 0)) ? 1 : 0);
  auto wrap = [&](int64_t v) {
    uint64_t mask = (uint64_t{1} << bits) - 1;
    uint64_t u = static_cast<uint64_t>(v) & mask;
    return static_cast<int64_t>(u >= (uint64_t{1} << (bits - 1)) ? u - mask - 1 : u);
  };
  return {wrap(q), wrap(r), wrap(floor_q), wrap(floor_r), wrap(ceil_q)};
}

TEST_F(ArithmeticTest, IntegerDivisionFamilyIsTotalAndRoundsAsNamed) {
  BlockFn kernel = Load("int_division.tile", "divide_i32");
  BlockFn constants = Load("int_division.tile", "divide_by_constants");
  ASSERT_NE(kernel, nullptr);
  ASSERT_NE(constants, nullptr);
  std::vector<int32_t> a, b;
  for (int32_t x : {7, -7, 6, -6, 0, 1, -1, INT32_MIN, INT32_MAX}) {
    for (int32_t y : {2, -2, 3, -3, 1, -1, 0, 7, INT32_MIN, INT32_MAX}) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  int32_t n = static_cast<int32_t>(a.size());
  std::vector<int32_t> out(7 * n), by_const(8 * n);
  RunGrid(kernel, {a.data(), b.data(), out.data(), &n}, 1);
  RunGrid(constants, {a.data(), by_const.data(), &n}, 1);
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE(::testing::Message() << a[i] << " by " << b[i]);
    Division d = Divide(a[i], b[i], 32);
    EXPECT_EQ(out[i], d.q);
    EXPECT_EQ(out[n + i], d.r);
    EXPECT_EQ(out[2 * n + i], d.floor_q);
    EXPECT_EQ(out[3 * n + i], d.floor_r);
    EXPECT_EQ(out[4 * n + i], d.ceil_q);
    EXPECT_EQ(out[5 * n + i], std::min(a[i], b[i]));
    EXPECT_EQ(out[6 * n + i], std::max(a[i], b[i]));
    Division four = Divide(a[i], 4, 32), minus_three = Divide(a[i], -3, 32);
    EXPECT_EQ(by_const[i], four.q);
    EXPECT_EQ(by_const[n + i], four.r);
    EXPECT_EQ(by_const[2 * n + i], four.floor_q);
    EXPECT_EQ(by_const[3 * n + i], four.floor_r);
    EXPECT_EQ(by_const[4 * n + i], four.ceil_q);
    EXPECT_EQ(by_const[5 * n + i], minus_three.floor_q);
    EXPECT_EQ(by_const[6 * n + i], minus_three.floor_r);
    EXPECT_EQ(by_const[7 * n + i], minus_three.ceil_q);
  }
}

TEST_F(ArithmeticTest, UnsignedAndI8Division) {
  BlockFn kernel = Load("int_division.tile", "divide_small");
  ASSERT_NE(kernel, nullptr);
  std::vector<uint8_t> a, b;
  std::vector<int8_t> c, d;
  for (int x : {0, 1, 7, 200, 255, 128}) {
    for (int y : {0, 1, 3, 200, 255}) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  for (size_t i = 0; i < a.size(); ++i) {
    c.push_back(static_cast<int8_t>(std::vector<int>{-128, -7, 7, 100, -1, 0}[i % 6]));
    d.push_back(static_cast<int8_t>(std::vector<int>{-1, 3, -3, 0, 2}[i % 5]));
  }
  int32_t n = static_cast<int32_t>(a.size());
  std::vector<uint8_t> u(5 * n);
  std::vector<int8_t> s(5 * n);
  RunGrid(kernel, {a.data(), b.data(), c.data(), d.data(), u.data(), s.data(), &n}, 1);
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE(::testing::Message()
                 << int{a[i]} << "," << int{b[i]} << " / " << int{c[i]} << "," << int{d[i]});
    EXPECT_EQ(u[i], b[i] ? a[i] / b[i] : 0);
    EXPECT_EQ(u[n + i], b[i] ? a[i] % b[i] : a[i]);
    EXPECT_EQ(u[2 * n + i], b[i] ? (a[i] + b[i] - 1) / b[i] : 0);
    EXPECT_EQ(u[3 * n + i], std::max(a[i], b[i]));
    EXPECT_EQ(u[4 * n + i], a[i] > b[i] ? 1 : 0);  // unsigned comparison
    Division div = Divide(c[i], d[i], 8);
    EXPECT_EQ(s[i], div.q);
    EXPECT_EQ(s[n + i], div.floor_q);
    EXPECT_EQ(s[2 * n + i], div.floor_r);
    EXPECT_EQ(s[3 * n + i], std::min(c[i], d[i]));
    EXPECT_EQ(s[4 * n + i], static_cast<int8_t>(c[i] * d[i]));  // i8 wraps
  }
}

TEST_F(ArithmeticTest, XorOnEveryIntegerWidth) {
  BlockFn kernel = Load("int_xor.tile", "xor_widths");
  ASSERT_NE(kernel, nullptr);
  std::vector<int32_t> a, b;
  for (int32_t x : {0, 1, -1, 0x5a5a5a5a, INT32_MIN, INT32_MAX}) {
    for (int32_t y : {0, 7, -8, 0x0f0f0f0f, INT32_MIN, -1}) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  int32_t n = static_cast<int32_t>(a.size());
  std::vector<int64_t> w(n);
  std::vector<uint8_t> u(n);
  std::vector<int8_t> s(n);
  std::vector<int16_t> h(n);
  for (int i = 0; i < n; ++i) {
    w[i] = (int64_t{a[i]} << 32) | 0x12345678;
    u[i] = static_cast<uint8_t>(a[i] + i);
    s[i] = static_cast<int8_t>(a[i] - i);
    h[i] = static_cast<int16_t>(a[i] * 3);
  }
  std::vector<int32_t> out(n);
  std::vector<int64_t> wide(n);
  std::vector<uint8_t> u_out(n);
  std::vector<int8_t> s_out(n);
  std::vector<int16_t> h_out(n);
  RunGrid(kernel,
          {a.data(), b.data(), w.data(), u.data(), s.data(), h.data(), out.data(), wide.data(),
           u_out.data(), s_out.data(), h_out.data(), &n},
          1);
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE(::testing::Message() << a[i] << " ^ " << b[i]);
    EXPECT_EQ(out[i], a[i] ^ b[i]);
    EXPECT_EQ(wide[i], w[i] ^ int64_t{b[i]});
    EXPECT_EQ(u_out[i], static_cast<uint8_t>(u[i] ^ 170));
    EXPECT_EQ(s_out[i], static_cast<int8_t>(s[i] ^ -128));
    EXPECT_EQ(h_out[i], static_cast<int16_t>(h[i] ^ static_cast<int16_t>(b[i])));
  }
}

TEST_F(ArithmeticTest, XorOnVectorLanesAndTheSharedTileSwizzle) {
  BlockFn vector = Load("int_xor.tile", "xor_vector");
  BlockFn swizzle = Load("int_xor.tile", "swizzle_rows");
  ASSERT_NE(vector, nullptr);
  ASSERT_NE(swizzle, nullptr);
  std::vector<int32_t> a(16), b(16), out(16);
  for (int i = 0; i < 16; ++i) {
    a[i] = i * 0x01010101 - 50;
    b[i] = (i % 5) - 2;
  }
  RunGrid(vector, {a.data(), b.data(), out.data()}, 2);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(out[i], a[i] ^ b[i]) << i;
  // Each row's 8 chunks of 8 elements are permuted, so every element lands exactly once.
  std::vector<float> tile(8 * 64), swizzled(8 * 64, -1.0f);
  for (int i = 0; i < 8 * 64; ++i) tile[i] = static_cast<float>(i);
  RunGrid(swizzle, {tile.data(), swizzled.data()}, 1);
  for (int r = 0; r < 8; ++r) {
    for (int c = 0; c < 64; ++c) {
      EXPECT_EQ(swizzled[r * 64 + ((c / 8) ^ r) * 8 + c % 8], tile[r * 64 + c]) << r << ", " << c;
    }
  }
}

TEST_F(ArithmeticTest, VectorFloorDivision) {
  BlockFn kernel = Load("int_division.tile", "divide_vector");
  ASSERT_NE(kernel, nullptr);
  std::vector<int32_t> a(16), b(16), out(32);
  for (int i = 0; i < 16; ++i) {
    a[i] = i * 7 - 50;
    b[i] = (i % 5) - 2;
  }
  RunGrid(kernel, {a.data(), b.data(), out.data()}, 2);
  for (int i = 0; i < 16; ++i) {
    Division d = Divide(a[i], b[i], 32);
    EXPECT_EQ(out[i], d.floor_q) << a[i] << " / " << b[i];
    EXPECT_EQ(out[16 + i], d.floor_r) << a[i] << " % " << b[i];
  }
}

TEST_F(ArithmeticTest, MathIntrinsics) {
  BlockFn f32 = Load("math.tile", "math_f32");
  BlockFn f64 = Load("math.tile", "math_f64_vector");
  BlockFn narrow = Load("math.tile", "math_narrow");
  ASSERT_NE(f32, nullptr);
  ASSERT_NE(f64, nullptr);
  ASSERT_NE(narrow, nullptr);
  std::vector<float> x = {0.25f, 0.5f, 1.0f, 1.5f, 2.0f, 3.75f, 10.0f, 0.001f, 7.5f};
  int32_t n = static_cast<int32_t>(x.size());
  std::vector<float> out(16 * n);
  RunGrid(f32, {x.data(), out.data(), &n}, 1);
  using Fn = double (*)(double);
  std::vector<Fn> reference = {
      [](double v) { return std::exp(v); },      [](double v) { return std::exp2(v); },
      [](double v) { return std::log(v); },      [](double v) { return std::log2(v); },
      [](double v) { return std::sqrt(v); },     [](double v) { return 1 / std::sqrt(v); },
      [](double v) { return std::tanh(v); },     [](double v) { return std::erf(v); },
      [](double v) { return std::sin(v); },      [](double v) { return std::cos(v); },
      [](double v) { return std::floor(v); },    [](double v) { return std::ceil(v); },
      [](double v) { return std::pow(v, 1.5); }, [](double v) { return v * v - 1; },
      [](double v) { return std::fabs(v); },     [](double v) { return std::exp2(v); }};
  for (int f = 0; f < 16; ++f) {
    for (int i = 0; i < n; ++i) {
      double expected = reference[f](x[i]);
      EXPECT_NEAR(out[f * n + i], expected, 1e-6 * std::max(1.0, std::fabs(expected)))
          << "function " << f << " of " << x[i];
    }
  }
  std::vector<double> xd(16), outd(48);
  std::vector<int32_t> iabs(16);
  for (int i = 0; i < 16; ++i) xd[i] = 0.37 * i - 2.9;
  RunGrid(f64, {xd.data(), outd.data(), iabs.data()}, 4);
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(outd[i], std::exp(xd[i]));
    EXPECT_EQ(outd[16 + i], std::tanh(xd[i]));
    EXPECT_EQ(outd[32 + i], std::erf(xd[i]));
    EXPECT_EQ(iabs[i], std::abs(static_cast<int32_t>(xd[i] * -3.0)));
  }
  std::vector<uint16_t> h(n), b(n), hout(2 * n), bout(2 * n);
  for (int i = 0; i < n; ++i) {
    h[i] = NearestHalf(x[i] - 3);
    b[i] = NearestBf16(x[i] - 3);
  }
  RunGrid(narrow, {h.data(), b.data(), hout.data(), bout.data(), &n}, 1);
  for (int i = 0; i < n; ++i) {
    float hv = HalfValue(h[i]), bv = Bf16Value(b[i]);
    // Computed in f32 (the same libm) and rounded once.
    EXPECT_EQ(hout[i], NearestHalf(std::exp(hv)));
    EXPECT_EQ(hout[n + i], NearestHalf(std::sqrt(std::fabs(hv))));
    EXPECT_EQ(bout[i], NearestBf16(std::exp(bv)));
    EXPECT_EQ(bout[n + i], NearestBf16(std::tanh(bv)));
  }
}

// One function of a vector math kernel: its name, the float64 value it should be near, and
// whether a result is near enough (NaN results are checked before: want NaN, got NaN).
struct MathCheck {
  const char* name;
  double (*want)(double);
  std::function<bool(double want, float got)> near;
};

// Runs `kernel` (X: f32[N], Out: f32[F, N], 16 lanes a block) on `x`, padded with `pad` to whole
// vectors, and checks output f at every x against checks[f]; reports at most 10 failures.
void ExpectMatchesFloat64(BlockFn kernel, std::vector<float> x, float pad,
                          const std::vector<MathCheck>& checks) {
  while (x.size() % 16 != 0) x.push_back(pad);
  int32_t n = static_cast<int32_t>(x.size());
  std::vector<float> out(checks.size() * x.size());
  RunGrid(kernel, {x.data(), out.data(), &n}, n / 16);
  int failures = 0;
  for (size_t f = 0; f < checks.size() && failures < 10; ++f) {
    for (int32_t i = 0; i < n && failures < 10; ++i) {
      const double want = checks[f].want(x[i]);
      const float got = out[f * n + i];
      if (std::isnan(want) ? std::isnan(got) : checks[f].near(want, got)) continue;
      ++failures;
      ADD_FAILURE() << checks[f].name << "(" << x[i] << ") = " << got << ", want " << want;
    }
  }
}

constexpr double kMaxNormal = std::numeric_limits<float>::max();
constexpr double kMinNormal = std::numeric_limits<float>::min();
constexpr double kMinDenormal = std::numeric_limits<float>::denorm_min();

// Within `bound` of `want` relative, or one denormal where `want` is below the normals.
bool NearRelative(double bound, double want, float got) {
  return std::fabs(got - want) <= bound * std::fabs(want) ||
         (std::fabs(want) < kMinNormal && std::fabs(got - want) <= kMinDenormal);
}

// exp, exp2 and tanh of f32 vectors against float64 over their whole range, every 1/4096 of a
// unit (and specials): exp and exp2 within 1.2e-7 of the value where the result is a normal
// f32, within one denormal below, +inf above; tanh within 1.4e-7; NaN stays NaN.
TEST_F(ArithmeticTest, VectorExpExp2AndTanhMatchFloat64) {
  BlockFn kernel = Load("math.tile", "exp_f32_vector");
  ASSERT_NE(kernel, nullptr);
  std::vector<float> x;
  for (int i = -160 * 4096; i <= 130 * 4096; ++i) x.push_back(static_cast<float>(i) / 4096.0f);
  for (float special :
       {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
        std::numeric_limits<float>::quiet_NaN(), -0.0f, 1e-30f, -1e-30f, 1e-40f, 88.7228f, 88.7229f,
        -103.97f, 127.99999f, 128.0f, -149.0f, -149.5f, 0.62499994f, 0.625f, -0.625f, 9.0f,
        -9.5f}) {
    x.push_back(special);
  }
  auto exp_near = [](double want, float got) {
    if (want > kMaxNormal) return std::isinf(got) && got > 0;
    if (want < kMinNormal) return std::fabs(got - want) <= kMinDenormal;
    return std::fabs(got - want) <= 1.2e-7 * want;
  };
  ExpectMatchesFloat64(kernel, std::move(x), 0.0f,
                       {{"exp", [](double v) { return std::exp(v); }, exp_near},
                        {"exp2", [](double v) { return std::exp2(v); }, exp_near},
                        {"tanh", [](double v) { return std::tanh(v); },
                         [](double want, float got) { return NearRelative(1.4e-7, want, got); }}});
}

// log, log2 and erf of f32 vectors against float64: log and log2 at 64 values in every binade
// from the smallest denormal to the largest f32 and around 1, erf every 1/4096 over [-5, 5],
// and specials. log within 1.3e-7 and log2 within 2e-7 relative (near 1 too, where they cross
// zero: f = x - 1 is exact there), erf within 1.8e-7 (one denormal below the normals);
// log(0) = -inf, log(<0) = NaN, log(+inf) = +inf.
TEST_F(ArithmeticTest, VectorLogLog2AndErfMatchFloat64) {
  BlockFn kernel = Load("math.tile", "log_erf_f32_vector");
  ASSERT_NE(kernel, nullptr);
  std::vector<float> x;
  for (int e = -149; e <= 127; ++e) {
    for (int k = 0; k < 64; ++k) x.push_back(std::ldexp(1.0f + k / 64.0f, e));
  }
  for (int i = -4096; i <= 4096; ++i) x.push_back(1.0f + i / 65536.0f);
  for (int i = -5 * 4096; i <= 5 * 4096; ++i) x.push_back(static_cast<float>(i) / 4096.0f);
  for (float special :
       {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
        std::numeric_limits<float>::quiet_NaN(), -0.0f, 0.0f, -1.0f, 1e-45f, 0.70710677f,
        1.4142135f, 1.4142137f, 0.8999999f, 0.9f, 3.9199998f, 3.92f, 1e30f}) {
    x.push_back(special);
  }
  auto within = [](double bound) {
    return [bound](double want, float got) {
      return std::isinf(want) ? got == want : NearRelative(bound, want, got);
    };
  };
  ExpectMatchesFloat64(kernel, std::move(x), 1.0f,
                       {{"log", [](double v) { return std::log(v); }, within(1.3e-7)},
                        {"log2", [](double v) { return std::log2(v); }, within(2e-7)},
                        {"erf", [](double v) { return std::erf(v); }, within(1.8e-7)}});
}

// Within 1.5e-7 of the value, relative (near zero crossings too: the reductions keep r's
// digits); a zero with its sign.
bool NearSinCos(double want, float got) {
  return want == 0 ? got == 0 && std::signbit(got) == std::signbit(want)
                   : std::fabs(got - want) <= 1.5e-7 * std::fabs(want);
}

// Arguments for sin and cos: every 1/256 over [-300, 300], values up to the Cody-Waite bound of
// 65536, values of every exponent beyond it (Payne-Hanek), the f32 values beyond it nearest to
// multiples of pi/2 at their exponent (found from the continued fractions of 2^p 2/pi: sin or
// cos there is about 1e-9, all of it in r's last digits), infinities, NaN and other specials.
std::vector<float> SinCosArguments() {
  std::vector<float> x;
  for (int i = -300 * 256; i <= 300 * 256; ++i) x.push_back(static_cast<float>(i) / 256.0f);
  for (int i = 0; i < 4096; ++i) x.push_back(65536.0f * static_cast<float>(i) / 4096.0f);
  uint32_t state = 20261205;
  for (int i = 0; i < 40000; ++i) {
    state = state * 1664525u + 1013904223u;
    const uint32_t exponent = 143 + (state >> 8) % 112;  // 2^16 .. the largest finite
    state = state * 1664525u + 1013904223u;
    const uint32_t bits = (state & 0x807fffffu) | (exponent << 23);
    x.push_back(absl::bit_cast<float>(bits));
  }
  for (uint32_t bits :
       {0x6f79be45u, 0x50a3e87fu, 0x6ff9be45u, 0x5123e87fu, 0x7079be45u, 0x6a1976f1u, 0x53b146a6u,
        0x65898498u, 0x51a3e87fu, 0x77584625u, 0x4c2332e9u, 0x6c55da58u, 0x70f9be45u, 0x5c07bcd0u,
        0x723fa09au, 0x4a2562aeu, 0x642e0733u, 0x4e13d4a5u, 0x7ebdcda0u, 0x7f7fffffu}) {
    x.push_back(absl::bit_cast<float>(bits));
    x.push_back(-absl::bit_cast<float>(bits));
  }
  for (float special :
       {65536.0f, -65536.0f, 65537.0f, 1e6f, -3e38f, std::numeric_limits<float>::infinity(),
        -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(), 1e-30f,
        -0.0f, 0.7853982f, 1.5707964f, 3.1415927f, 4.712389f, 1e-40f, 12345.678f}) {
    x.push_back(special);
  }
  return x;
}

// sin and cos of f32 vectors, and in scalar code, against float64 over the whole range: within
// 1.5e-7 relative, NaN at infinities.
TEST_F(ArithmeticTest, VectorSinAndCosMatchFloat64) {
  BlockFn kernel = Load("math.tile", "sincos_f32_vector");
  ASSERT_NE(kernel, nullptr);
  ExpectMatchesFloat64(kernel, SinCosArguments(), 2.0f,
                       {{"sin", [](double v) { return std::sin(v); }, NearSinCos},
                        {"cos", [](double v) { return std::cos(v); }, NearSinCos}});
}

TEST_F(ArithmeticTest, ScalarSinAndCosMatchFloat64) {
  BlockFn kernel = Load("math.tile", "sincos_f32");
  ASSERT_NE(kernel, nullptr);
  ExpectMatchesFloat64(kernel, SinCosArguments(), 2.0f,
                       {{"sin", [](double v) { return std::sin(v); }, NearSinCos},
                        {"cos", [](double v) { return std::cos(v); }, NearSinCos}});
}

}  // namespace
}  // namespace tile_ir::cpu
