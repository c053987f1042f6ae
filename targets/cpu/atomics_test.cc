// atomic_add_at on every dtype that has one, from blocks running concurrently
// (testdata/targets/cpu/atomics.tile).
#include <cstdint>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "targets/cpu/cpu_codegen.h"
#include "targets/cpu/cpu_test_util.h"
#include "targets/cpu/float_reference.h"

namespace tile_ir::cpu {
namespace {

using test_util::RunGrid;

TEST(AtomicAddTest, ConcurrentBlocksAddEveryDtype) {
  test_util::KernelLoader loader;
  BlockFn wide_fn = loader.Load("atomics.tile", "atomic_wide");
  BlockFn narrow_fn = loader.Load("atomics.tile", "atomic_narrow");
  ASSERT_TRUE(wide_fn != nullptr && narrow_fn != nullptr);

  int32_t n = 64 * 40;
  std::vector<int32_t> x(n);
  for (int i = 0; i < n; ++i) x[i] = (i * 7919) % 1000 - 500;
  std::vector<int32_t> hist(16), vec(4);
  std::vector<float> fsum(4);
  std::vector<double> dsum(2);
  std::vector<uint16_t> hsum(4);
  std::vector<uint8_t> usum(4, 250);
  RunGrid(
      wide_fn,
      {x.data(), hist.data(), fsum.data(), dsum.data(), hsum.data(), usum.data(), vec.data(), &n},
      n / 64, 1, 1, /*threads=*/4);
  std::vector<int> count(16);
  for (int value : x) ++count[((value % 16) + 16) % 16];
  for (int k = 0; k < 16; ++k) EXPECT_EQ(hist[k], count[k]) << k;
  for (int k = 0; k < 4; ++k) {
    int c = count[k] + count[k + 4] + count[k + 8] + count[k + 12];
    EXPECT_EQ(fsum[k], 0.5f * c);
    EXPECT_EQ(test_util::HalfValue(hsum[k]), static_cast<float>(c));
    EXPECT_EQ(usum[k], static_cast<uint8_t>(250 + c));  // u8 wraps
    EXPECT_EQ(vec[k], n);
  }
  for (int k = 0; k < 2; ++k) {
    int c = 0;
    for (int j = k; j < 16; j += 2) c += count[j];
    EXPECT_EQ(dsum[k], 0.25 * c);
  }

  int32_t m = 60;  // 15 adds per bf16/fp8 bin, 7 or 8 per i4 bin: all exact or wrapping
  std::vector<int32_t> y(m);
  for (int i = 0; i < m; ++i) y[i] = i;
  std::vector<uint16_t> bsum(4);
  std::vector<uint8_t> esum(4), qsum(4);
  RunGrid(narrow_fn, {y.data(), bsum.data(), esum.data(), qsum.data(), &m}, 4, 1, 1, 4);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(test_util::Bf16Value(bsum[k]), 15.0f);
    EXPECT_EQ(test_util::Fp8Value(esum[k], ScalarType::kF8E4M3), 7.5);
  }
  for (int k = 0; k < 8; ++k) {
    int adds = (m - k + 7) / 8;
    int nibble = (qsum[k / 2] >> (4 * (k % 2))) & 15;
    EXPECT_EQ(nibble, adds & 15) << k;
  }
}

}  // namespace
}  // namespace tile_ir::cpu
