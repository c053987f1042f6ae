// Host buffers: layout, rounding and saturation through Set/Get, i4 packing,
// poisoning, and the DLPack view.
#include "runtime/host_buffer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace tile_ir::runtime {
namespace {

TEST(HostBufferTest, IsAlignedZeroFilledAndSizedByDtype) {
  HostBuffer f16(kF16, {3, 5});
  EXPECT_EQ(f16.num_elements(), 15);
  EXPECT_EQ(f16.size_bytes(), 30);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(f16.data()) % 64, 0u);
  for (int64_t i = 0; i < 15; ++i) EXPECT_EQ(f16.Get(i), 0.0);
  EXPECT_EQ(HostBuffer(kI4, {7}).size_bytes(), 4);
  EXPECT_EQ(HostBuffer(kBool, {7}).size_bytes(), 7);
  HostBuffer empty(kF32, {0, 4});
  EXPECT_EQ(empty.num_elements(), 0);
  EXPECT_NE(empty.data(), nullptr);
  HostBuffer scalar(kF64, {});
  EXPECT_EQ(scalar.num_elements(), 1);
}

TEST(HostBufferTest, FloatSetRoundsToNearestEvenOnce) {
  HostBuffer f16(kF16, {4});
  f16.Set(0, 1.0 + std::ldexp(1.0, -11));  // tie between 1 and 1 + 2^-10: even
  EXPECT_EQ(f16.Get(0), 1.0);
  // Just above the tie: a conversion through float would round to the tie
  // first and then to even; rounding once goes up.
  f16.Set(1, 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40));
  EXPECT_EQ(f16.Get(1), 1.0 + std::ldexp(1.0, -10));
  f16.Set(2, 1e6);
  EXPECT_TRUE(std::isinf(f16.Get(2)));
  HostBuffer f32(kF32, {1});
  f32.Set(0, 0.1);
  EXPECT_EQ(f32.Get(0), static_cast<double>(0.1f));
  HostBuffer bf16(kBF16, {1});
  bf16.Set(0, 3.14159265);
  EXPECT_EQ(bf16.Get(0), 3.140625);
  HostBuffer e4m3(kF8E4M3, {1});
  e4m3.Set(0, 1000.0);
  EXPECT_TRUE(std::isnan(e4m3.Get(0)));
  HostBuffer e5m2(kF8E5M2, {1});
  e5m2.Set(0, 0.3);
  EXPECT_EQ(e5m2.Get(0), 0.3125);
}

TEST(HostBufferTest, IntegersRoundToEvenAndSaturate) {
  HostBuffer i8(kI8, {6});
  i8.Set(0, 2.5);
  i8.Set(1, 3.5);
  i8.Set(2, 1000);
  i8.Set(3, -1000);
  i8.Set(4, NAN);
  i8.Set(5, -2.5);
  EXPECT_EQ(i8.Get(0), 2);
  EXPECT_EQ(i8.Get(1), 4);
  EXPECT_EQ(i8.Get(2), 127);
  EXPECT_EQ(i8.Get(3), -128);
  EXPECT_EQ(i8.Get(4), 0);
  EXPECT_EQ(i8.Get(5), -2);
  HostBuffer u8(kU8, {2});
  u8.Set(0, -3);
  u8.Set(1, 300);
  EXPECT_EQ(u8.Get(0), 0);
  EXPECT_EQ(u8.Get(1), 255);
  HostBuffer i64(kI64, {2});
  i64.Set(0, 1e30);
  i64.Set(1, -1e30);
  EXPECT_EQ(i64.Get(0), static_cast<double>(std::numeric_limits<int64_t>::max()));
  EXPECT_EQ(i64.Get(1), static_cast<double>(std::numeric_limits<int64_t>::min()));
  int64_t raw;
  std::memcpy(&raw, i64.data(), sizeof raw);
  EXPECT_EQ(raw, std::numeric_limits<int64_t>::max());
  HostBuffer i32(kI32, {1});
  i32.Set(0, 3e9);
  EXPECT_EQ(i32.Get(0), 2147483647.0);
  HostBuffer flags(kBool, {3});
  flags.Set(0, 0.25);
  flags.Set(1, 0.0);
  flags.Set(2, NAN);
  EXPECT_EQ(flags.Get(0), 1.0);
  EXPECT_EQ(flags.Get(1), 0.0);
  EXPECT_EQ(flags.Get(2), 0.0);
}

TEST(HostBufferTest, I4PacksTwoPerByteLowNibbleFirst) {
  HostBuffer i4(kI4, {3});
  i4.Set(0, -3);
  i4.Set(1, 7);
  i4.Set(2, 100);
  const uint8_t* bytes = static_cast<const uint8_t*>(i4.data());
  EXPECT_EQ(bytes[0], 0x7D);  // 7 in the high nibble, -3 (0xD) in the low one
  EXPECT_EQ(bytes[1], 0x07);  // saturated to 7
  EXPECT_EQ(i4.Get(0), -3);
  EXPECT_EQ(i4.Get(1), 7);
  EXPECT_EQ(i4.Get(2), 7);
  i4.Set(1, -8);
  EXPECT_EQ(i4.Get(0), -3);
  EXPECT_EQ(i4.Get(1), -8);
}

TEST(HostBufferTest, PoisonMakesFloatsNaN) {
  for (DataType dtype : {kF16, kBF16, kF32, kF64, kF8E4M3, kF8E5M2}) {
    HostBuffer buffer(dtype, {5});
    buffer.Poison();
    for (int64_t i = 0; i < 5; ++i) EXPECT_TRUE(std::isnan(buffer.Get(i))) << dtype.ToString();
  }
  HostBuffer i32(kI32, {2});
  i32.Poison(0xFF);
  EXPECT_EQ(i32.Get(1), -1);
}

TEST(HostBufferTest, DLTensorViewDescribesTheBuffer) {
  HostBuffer buffer(kBF16, {2, 3});
  DLTensor* t = buffer.AsDLTensor();
  EXPECT_EQ(t->data, buffer.data());
  EXPECT_EQ(t->device.device_type, kDLCPU);
  EXPECT_EQ(t->ndim, 2);
  EXPECT_EQ(t->shape[0], 2);
  EXPECT_EQ(t->shape[1], 3);
  EXPECT_EQ(t->strides, nullptr);
  EXPECT_EQ(t->byte_offset, 0u);
  EXPECT_EQ(t->dtype.code, kDLBfloat);
  EXPECT_EQ(t->dtype.bits, 16);
  EXPECT_EQ(t->dtype.lanes, 1);
}

// u16 and u32 saturate to their ranges; u64 to 2^64 - 1, past int64 (its bits are all ones).
TEST(HostBufferTest, UnsignedTypesSaturateToTheirRanges) {
  HostBuffer u16(kU16, {3});
  u16.Set(0, -3);
  u16.Set(1, 70000);
  u16.Set(2, 40000.5);
  EXPECT_EQ(u16.Get(0), 0);
  EXPECT_EQ(u16.Get(1), 65535);
  EXPECT_EQ(u16.Get(2), 40000);
  HostBuffer u32(kU32, {2});
  u32.Set(0, 3e9);
  u32.Set(1, 1e10);
  EXPECT_EQ(u32.Get(0), 3e9);
  EXPECT_EQ(u32.Get(1), 4294967295.0);
  HostBuffer u64(kU64, {3});
  u64.Set(0, 1e30);
  u64.Set(1, -1);
  u64.Set(2, 0x1p63);
  uint64_t raw[3];
  std::memcpy(raw, u64.data(), sizeof raw);
  EXPECT_EQ(raw[0], std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(raw[1], 0u);
  EXPECT_EQ(raw[2], uint64_t{1} << 63);
  EXPECT_EQ(u64.Get(2), 0x1p63);
}

TEST(HostBufferTest, DLDataTypeMapping) {
  struct Case {
    DataType dtype;
    uint8_t code;
    uint8_t bits;
  };
  for (const Case& c :
       {Case{kF32, kDLFloat, 32}, Case{kF16, kDLFloat, 16}, Case{kF64, kDLFloat, 64},
        Case{kBF16, kDLBfloat, 16}, Case{kI4, kDLInt, 4}, Case{kI64, kDLInt, 64},
        Case{kU8, kDLUInt, 8}, Case{kU16, kDLUInt, 16}, Case{kU32, kDLUInt, 32},
        Case{kU64, kDLUInt, 64}, Case{kBool, kDLPackBoolCode, 8},
        Case{kF8E4M3, kDLPackFloat8E4M3FNCode, 8}, Case{kF8E5M2, kDLPackFloat8E5M2Code, 8}}) {
    DLDataType dl;
    ASSERT_TRUE(ToDLDataType(c.dtype, &dl)) << c.dtype.ToString();
    EXPECT_EQ(dl.code, c.code) << c.dtype.ToString();
    EXPECT_EQ(dl.bits, c.bits) << c.dtype.ToString();
    EXPECT_EQ(dl.lanes, 1);
  }
  DLDataType dl;
  EXPECT_FALSE(ToDLDataType(kVoid, &dl));
  ASSERT_TRUE(ToDLDataType(kF32.with_lanes(4), &dl));
  EXPECT_EQ(dl.lanes, 4);
}

TEST(HostBufferTest, CreateRejectsBadShapesAndDtypes) {
  EXPECT_TRUE(HostBuffer::Create(kF32, {2, 3}).ok());
  absl::StatusOr<std::unique_ptr<HostBuffer>> negative = HostBuffer::Create(kF32, {2, -3});
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.status().message(), "dimension 1 of a host buffer is negative (-3)");
  EXPECT_FALSE(HostBuffer::Create(kF32, {int64_t{1} << 40, int64_t{1} << 40}).ok());
  EXPECT_FALSE(HostBuffer::Create(kF32.with_lanes(4), {2}).ok());
  EXPECT_FALSE(HostBuffer::Create(kVoid, {2}).ok());
}

}  // namespace
}  // namespace tile_ir::runtime
