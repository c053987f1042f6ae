// RoundToDtype: nearest-even rounding to each float format, including its
// subnormals and overflow, and clamping to each integer range.
#include "tile_ir/dtype_rounding.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tile_ir {
namespace {

TEST(DtypeRoundingTest, RoundsToEachFormat) {
  EXPECT_EQ(RoundToDtype(1.0 / 3, kF32), static_cast<double>(1.0f / 3));
  EXPECT_EQ(RoundToDtype(1.0 / 3, kF16), 0.333251953125);
  EXPECT_EQ(RoundToDtype(1.0 / 3, kBF16), 0.333984375);
  EXPECT_EQ(RoundToDtype(1.0 / 3, kF64), 1.0 / 3);
  // Ties go to even: 1 + 2^-11 lies halfway between two fp16 neighbours.
  EXPECT_EQ(RoundToDtype(1.0 + 0x1p-11, kF16), 1.0);
  EXPECT_EQ(RoundToDtype(1.0 + 3 * 0x1p-11, kF16), 1.0 + 0x1p-9);
  // fp16 subnormals are spaced 2^-24; past 65504 (plus half a step) is infinity.
  EXPECT_EQ(RoundToDtype(1e-7, kF16), 2 * 0x1p-24);
  EXPECT_EQ(RoundToDtype(65504.0, kF16), 65504.0);
  EXPECT_TRUE(std::isinf(RoundToDtype(70000.0, kF16)));
  EXPECT_EQ(RoundToDtype(-2.6, kI8), -3.0);
  EXPECT_EQ(RoundToDtype(300, kU8), 255.0);
  EXPECT_EQ(RoundToDtype(-9, kI4), -8.0);
}

}  // namespace
}  // namespace tile_ir
