// Bitwise and, or and shifts on every integer width and on vector lanes, reinterpret, and atomic
// max and min from concurrent blocks (testdata/targets/cpu/bit_ops.tile), against C++.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "absl/base/casts.h"
#include "gtest/gtest.h"
#include "targets/cpu/cpu_codegen.h"
#include "targets/cpu/cpu_test_util.h"
#include "targets/cpu/float_reference.h"

namespace tile_ir::cpu {
namespace {

using test_util::RunGrid;

// The IR's shifts: the amount modulo the width, the result wrapped to T (shifted as unsigned,
// so that C++ defines it); >> is arithmetic on signed T.
template <typename T>
T Shl(T a, int64_t b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) << (b & (sizeof(T) * 8 - 1))));
}
template <typename T>
T Shr(T a, int64_t b) {
  return static_cast<T>(a >> (b & (sizeof(T) * 8 - 1)));
}

class BitOpsTest : public ::testing::Test {
 protected:
  test_util::KernelLoader loader_;
};

TEST_F(BitOpsTest, AndOrAndShiftsOnEveryIntegerWidth) {
  BlockFn kernel = loader_.Load("bit_ops.tile", "bit_widths");
  ASSERT_NE(kernel, nullptr);
  std::vector<int32_t> a, b;
  for (int32_t x : {0, 1, -1, 0x5a5a5a5a, INT32_MIN, INT32_MAX, -77}) {
    for (int32_t y : {0, 1, 3, 7, 8, 15, 31, 32, 33, 63, 64, -1}) {
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
    u[i] = static_cast<uint8_t>(a[i] + i * 37);
    s[i] = static_cast<int8_t>(a[i] - i * 13);
    h[i] = static_cast<int16_t>(a[i] * 3 + i);
  }
  std::vector<int32_t> out(4 * n);
  std::vector<int64_t> wide(4 * n);
  std::vector<uint8_t> u_out(4 * n);
  std::vector<int8_t> s_out(4 * n);
  std::vector<int16_t> h_out(4 * n);
  RunGrid(kernel,
          {a.data(), b.data(), w.data(), u.data(), s.data(), h.data(), out.data(), wide.data(),
           u_out.data(), s_out.data(), h_out.data(), &n},
          1);
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE(::testing::Message() << a[i] << " op " << b[i]);
    EXPECT_EQ(out[4 * i + 0], a[i] & b[i]);
    EXPECT_EQ(out[4 * i + 1], a[i] | b[i]);
    EXPECT_EQ(out[4 * i + 2], Shl(a[i], b[i]));
    EXPECT_EQ(out[4 * i + 3], Shr(a[i], b[i]));
    EXPECT_EQ(wide[4 * i + 0], w[i] & int64_t{b[i]});
    EXPECT_EQ(wide[4 * i + 1], w[i] | int64_t{b[i]});
    EXPECT_EQ(wide[4 * i + 2], Shl(w[i], b[i]));
    EXPECT_EQ(wide[4 * i + 3], Shr(w[i], b[i]));
    const auto ub = static_cast<uint8_t>(b[i]);
    EXPECT_EQ(u_out[4 * i + 0], u[i] & 170);
    EXPECT_EQ(u_out[4 * i + 1], u[i] | 5);
    EXPECT_EQ(u_out[4 * i + 2], Shl(u[i], ub));
    EXPECT_EQ(u_out[4 * i + 3], Shr(u[i], ub));  // logical: u8 is unsigned
    const auto sb = static_cast<int8_t>(b[i]);
    EXPECT_EQ(s_out[4 * i + 0], static_cast<int8_t>(s[i] & -128));
    EXPECT_EQ(s_out[4 * i + 1], static_cast<int8_t>(s[i] | 3));
    EXPECT_EQ(s_out[4 * i + 2], Shl(s[i], sb));
    EXPECT_EQ(s_out[4 * i + 3], Shr(s[i], sb));  // arithmetic
    const auto hb = static_cast<int16_t>(b[i]);
    EXPECT_EQ(h_out[4 * i + 0], static_cast<int16_t>(h[i] & hb));
    EXPECT_EQ(h_out[4 * i + 1], static_cast<int16_t>(h[i] | hb));
    EXPECT_EQ(h_out[4 * i + 2], Shl(h[i], hb));
    EXPECT_EQ(h_out[4 * i + 3], Shr(h[i], hb));
  }
}

TEST_F(BitOpsTest, ShiftsOnVectorLanes) {
  BlockFn kernel = loader_.Load("bit_ops.tile", "shift_vector");
  ASSERT_NE(kernel, nullptr);
  std::vector<int32_t> a(16), b(16), out(32);
  for (int i = 0; i < 16; ++i) {
    a[i] = i * 0x01030507 - 5000;
    b[i] = i * 3 - 4;
  }
  RunGrid(kernel, {a.data(), b.data(), out.data()}, 2);
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(out[i], Shr(a[i], b[i]) & 65535) << i;
    EXPECT_EQ(out[16 + i], Shl(a[i], b[i]) | 1) << i;
  }
}

TEST_F(BitOpsTest, ReinterpretKeepsTheBits) {
  BlockFn kernel = loader_.Load("bit_ops.tile", "reinterpret_bits");
  ASSERT_NE(kernel, nullptr);
  const std::vector<float> floats = {0.0f, -0.0f, 1.0f, -2.5f, 1e-40f, 3.4e38f,
                                     std::numeric_limits<float>::infinity()};
  int32_t n = static_cast<int32_t>(floats.size());
  std::vector<int32_t> ints(n);
  std::vector<uint16_t> halves(n), half_bits(n), bf16s(n), bf16_bits(n);
  for (int i = 0; i < n; ++i) {
    ints[i] = i * 0x10203040 + 0x3f800000;
    halves[i] = test_util::NearestHalf(floats[i] / 8);
    half_bits[i] = static_cast<uint16_t>(0x3c00 + i * 0x1111);
    bf16s[i] = test_util::NearestBf16(floats[i]);
    bf16_bits[i] = static_cast<uint16_t>(0xbf80 - i * 0x0101);
  }
  std::vector<float> f_out(n);
  std::vector<int32_t> i_out(n);
  std::vector<uint16_t> h_out(n), hb_out(n), b_out(n), bb_out(n);
  RunGrid(kernel,
          {const_cast<float*>(floats.data()), ints.data(), halves.data(), half_bits.data(),
           bf16s.data(), bf16_bits.data(), f_out.data(), i_out.data(), h_out.data(),
           hb_out.data(), b_out.data(), bb_out.data(), &n},
          1);
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(i_out[i], absl::bit_cast<int32_t>(floats[i]));
    EXPECT_EQ(absl::bit_cast<uint32_t>(f_out[i]), static_cast<uint32_t>(ints[i]));
    EXPECT_EQ(hb_out[i], halves[i]);
    EXPECT_EQ(h_out[i], half_bits[i]);
    EXPECT_EQ(bb_out[i], bf16s[i]);
    EXPECT_EQ(b_out[i], bf16_bits[i]);
  }
}

TEST_F(BitOpsTest, AtomicMaxAndMinFromConcurrentBlocks) {
  BlockFn kernel = loader_.Load("bit_ops.tile", "atomic_extremes");
  ASSERT_NE(kernel, nullptr);
  int32_t n = 64 * 40;
  std::vector<int32_t> x(n);
  for (int i = 0; i < n; ++i) x[i] = (i * 7919) % 100003 - 50000;
  std::vector<int32_t> ints(8);
  std::vector<uint8_t> bytes(8);
  std::vector<float> floats(8);
  std::vector<uint16_t> halves(8), bf16s(8);
  std::vector<int64_t> longs(8);
  for (int k = 0; k < 4; ++k) {
    ints[k] = INT32_MIN;
    ints[k + 4] = INT32_MAX;
    bytes[k] = 0;
    bytes[k + 4] = 255;
    floats[k] = -1e30f;
    floats[k + 4] = 1e30f;
    halves[k] = test_util::NearestHalf(-60000);
    halves[k + 4] = test_util::NearestHalf(60000);
    bf16s[k] = test_util::NearestBf16(-1e30);
    bf16s[k + 4] = test_util::NearestBf16(1e30);
    longs[k] = INT64_MIN;
    longs[k + 4] = INT64_MAX;
  }
  RunGrid(kernel,
          {x.data(), ints.data(), bytes.data(), floats.data(), halves.data(), bf16s.data(),
           longs.data(), &n},
          n / 64, 1, 1, /*threads=*/4);
  for (int k = 0; k < 4; ++k) {
    SCOPED_TRACE(k);
    int32_t hi = INT32_MIN, lo = INT32_MAX;
    int byte_hi = 0, byte_lo = 255, half_hi = -60000, half_lo = 60000, bf_hi = -1000, bf_lo = 1000;
    for (int i = k; i < n; i += 4) {
      hi = std::max(hi, x[i]);
      lo = std::min(lo, x[i]);
      int byte = ((x[i] % 256) + 256) % 256;
      byte_hi = std::max(byte_hi, byte);
      byte_lo = std::min(byte_lo, byte);
      int half = ((x[i] % 1024) + 1024) % 1024;
      half_hi = std::max(half_hi, half);
      half_lo = std::min(half_lo, half);
      int bf = ((x[i] % 128) + 128) % 128;
      bf_hi = std::max(bf_hi, bf);
      bf_lo = std::min(bf_lo, bf);
    }
    EXPECT_EQ(ints[k], hi);
    EXPECT_EQ(ints[k + 4], lo);
    EXPECT_EQ(bytes[k], byte_hi);
    EXPECT_EQ(bytes[k + 4], byte_lo);
    EXPECT_EQ(floats[k], 0.5f * hi);
    EXPECT_EQ(floats[k + 4], 0.5f * lo);
    EXPECT_EQ(test_util::HalfValue(halves[k]), half_hi);
    EXPECT_EQ(test_util::HalfValue(halves[k + 4]), half_lo);
    EXPECT_EQ(test_util::Bf16Value(bf16s[k]), bf_hi);
    EXPECT_EQ(test_util::Bf16Value(bf16s[k + 4]), bf_lo);
    EXPECT_EQ(longs[k], int64_t{hi} * 4294967296);
    EXPECT_EQ(longs[k + 4], int64_t{lo} * 4294967296);
  }
}

}  // namespace
}  // namespace tile_ir::cpu
