// u16, u32 and u64 (testdata/targets/cpu/unsigned.tile) against C++'s unsigned arithmetic:
// wrap-around, unsigned division, logical shifts, unsigned order, saturating conversions from
// floats and modular ones between integer types, and the nibbles of packed u32 words.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "gtest/gtest.h"
#include "targets/cpu/cpu_test_util.h"

namespace tile_ir::cpu {
namespace {

using test_util::RunGrid;

// The IR's >>: the amount modulo the width.
template <typename T>
T Shr(T a, T b) {
  return static_cast<T>(a >> (b & (sizeof(T) * 8 - 1)));
}

// Float to unsigned as the IR converts: truncate toward zero, saturate, NaN gives 0.
template <typename T>
T Saturate(double x) {
  if (std::isnan(x) || x <= 0) return 0;
  if (x >= std::ldexp(1.0, sizeof(T) * 8)) return std::numeric_limits<T>::max();
  return static_cast<T>(x);
}

class UnsignedTest : public ::testing::Test {
 protected:
  test_util::KernelLoader loader_;
};

TEST_F(UnsignedTest, U32WrapsDividesAndShiftsAsUnsigned) {
  BlockFn kernel = loader_.Load("unsigned.tile", "u32_ops");
  ASSERT_NE(kernel, nullptr);
  std::vector<uint32_t> a, b;
  for (uint32_t x : {0u, 1u, 7u, 0x80000000u, 0xF0000001u, 0xFFFFFFFFu, 123456789u}) {
    for (uint32_t y : {0u, 1u, 3u, 4u, 31u, 32u, 33u, 0x80000000u, 0xFFFFFFFFu}) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  int32_t n = static_cast<int32_t>(a.size());
  std::vector<uint32_t> out(9 * n);
  RunGrid(kernel, {a.data(), b.data(), out.data(), &n}, 1);
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE(::testing::Message() << a[i] << " op " << b[i]);
    const uint32_t d = std::max(b[i], 1u);
    EXPECT_EQ(out[9 * i + 0], static_cast<uint32_t>(a[i] + b[i]));
    EXPECT_EQ(out[9 * i + 1], static_cast<uint32_t>(a[i] - b[i]));
    EXPECT_EQ(out[9 * i + 2], static_cast<uint32_t>(a[i] * b[i]));
    EXPECT_EQ(out[9 * i + 3], a[i] / d);
    EXPECT_EQ(out[9 * i + 4], a[i] % d);
    EXPECT_EQ(out[9 * i + 5], Shr(a[i], b[i]));
    EXPECT_EQ(out[9 * i + 6], std::min(a[i], b[i]));
    EXPECT_EQ(out[9 * i + 7], a[i] < b[i] ? 1u : 0u);
    EXPECT_EQ(out[9 * i + 8], a[i] / d + a[i] % d);
  }
}

// u16 * u16 wraps to 16 bits (C++ would compute it in int, where 65535 * 65535 overflows).
TEST_F(UnsignedTest, U16WrapsAndShiftsAsUnsigned) {
  BlockFn kernel = loader_.Load("unsigned.tile", "u16_ops");
  ASSERT_NE(kernel, nullptr);
  std::vector<uint16_t> a, b;
  for (uint16_t x : {0, 1, 255, 0x8000, 0xFFFF, 12345}) {
    for (uint16_t y : {0, 1, 3, 15, 16, 17, 0xFFFF}) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  int32_t n = static_cast<int32_t>(a.size());
  std::vector<uint16_t> out(6 * n);
  RunGrid(kernel, {a.data(), b.data(), out.data(), &n}, 1);
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE(::testing::Message() << a[i] << " op " << b[i]);
    EXPECT_EQ(out[6 * i + 0], static_cast<uint16_t>(uint32_t{a[i]} * b[i]));
    EXPECT_EQ(out[6 * i + 1], static_cast<uint16_t>(a[i] - b[i]));
    EXPECT_EQ(out[6 * i + 2], Shr(a[i], b[i]));
    EXPECT_EQ(out[6 * i + 3], static_cast<uint16_t>(~a[i]));
    EXPECT_EQ(out[6 * i + 4], std::max(a[i], b[i]));
    EXPECT_EQ(out[6 * i + 5], a[i] / std::max<uint16_t>(b[i], 1));
  }
}

// Values past 2^63 divide, shift and compare as unsigned (as i64 they would be negative).
TEST_F(UnsignedTest, U64PastTwoToThe63IsUnsigned) {
  BlockFn kernel = loader_.Load("unsigned.tile", "u64_ops");
  ASSERT_NE(kernel, nullptr);
  std::vector<uint64_t> a, b;
  for (uint64_t x : {uint64_t{0}, uint64_t{5}, uint64_t{1} << 63, ~uint64_t{0},
                     uint64_t{0xDEADBEEFCAFEF00Dull}}) {
    for (uint64_t y :
         {uint64_t{0}, uint64_t{3}, uint64_t{63}, uint64_t{64}, uint64_t{1} << 63, ~uint64_t{0}}) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  int32_t n = static_cast<int32_t>(a.size());
  std::vector<uint64_t> out(7 * n);
  RunGrid(kernel, {a.data(), b.data(), out.data(), &n}, 1);
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE(::testing::Message() << a[i] << " op " << b[i]);
    const uint64_t d = std::max<uint64_t>(b[i], 1);
    EXPECT_EQ(out[7 * i + 0], a[i] + b[i]);
    EXPECT_EQ(out[7 * i + 1], a[i] - b[i]);
    EXPECT_EQ(out[7 * i + 2], a[i] * b[i]);
    EXPECT_EQ(out[7 * i + 3], a[i] / d);
    EXPECT_EQ(out[7 * i + 4], a[i] % d);
    EXPECT_EQ(out[7 * i + 5], Shr(a[i], b[i]));
    EXPECT_EQ(out[7 * i + 6], a[i] > b[i] ? 1u : 0u);
  }
}

TEST_F(UnsignedTest, ConversionsSaturateFromFloatsAndWrapBetweenIntegers) {
  BlockFn kernel = loader_.Load("unsigned.tile", "conversions");
  ASSERT_NE(kernel, nullptr);
  const std::vector<float> f = {0.0f, 1.9f,    -3.5f, 65535.5f, 70000.0f,  4294967040.0f,
                                5e9f, 1.8e19f, 3e19f, NAN,      -INFINITY, INFINITY};
  int32_t n = static_cast<int32_t>(f.size());
  std::vector<uint32_t> a(n);
  std::vector<uint64_t> w(n);
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<uint32_t>(i) * 0x2468ACE1u;
    w[i] = (uint64_t{1} << 63) + static_cast<uint64_t>(i) * 0x100000000ull;
  }
  std::vector<uint16_t> to_u16(n), narrowed(n);
  std::vector<uint32_t> to_u32(n);
  std::vector<uint64_t> to_u64(n), widened(n);
  std::vector<float> from_u32(n);
  std::vector<double> from_u64(n);
  std::vector<int32_t> as_i32(n);
  RunGrid(kernel,
          {const_cast<float*>(f.data()), a.data(), w.data(), to_u16.data(), to_u32.data(),
           to_u64.data(), from_u32.data(), from_u64.data(), as_i32.data(), widened.data(),
           narrowed.data(), &n},
          1);
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE(::testing::Message() << "element " << i << ": " << f[i] << ", " << a[i]);
    EXPECT_EQ(to_u16[i], Saturate<uint16_t>(f[i]));
    EXPECT_EQ(to_u32[i], Saturate<uint32_t>(f[i]));
    EXPECT_EQ(to_u64[i], Saturate<uint64_t>(f[i]));
    EXPECT_EQ(from_u32[i], static_cast<float>(a[i]));
    EXPECT_EQ(from_u64[i], static_cast<double>(w[i]));
    EXPECT_EQ(as_i32[i], static_cast<int32_t>(a[i]));
    EXPECT_EQ(widened[i], static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(a[i]))));
    EXPECT_EQ(narrowed[i], static_cast<uint16_t>(a[i]));
  }
}

// Each word's eight 4-bit fields, low first: the top field of 0xF0000000 is 15, which an
// arithmetic shift would have smeared into 0xFFFFFFFF.
TEST_F(UnsignedTest, NibblesOfPackedWords) {
  BlockFn kernel = loader_.Load("unsigned.tile", "nibbles");
  ASSERT_NE(kernel, nullptr);
  std::vector<uint32_t> packed = {0x76543210u, 0xF0000000u, 0xFEDCBA98u, 0u};
  int32_t n = static_cast<int32_t>(packed.size());
  std::vector<float> out(8 * n);
  RunGrid(kernel, {packed.data(), out.data(), &n}, 1);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < 8; ++j) {
      EXPECT_EQ(out[8 * i + j], static_cast<float>((packed[i] >> (4 * j)) & 15)) << i << ", " << j;
    }
  }
}

}  // namespace
}  // namespace tile_ir::cpu
