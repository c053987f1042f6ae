// The C++ API's implicit conversions are TileLang's (promotion.h), written into the IR as
// explicit casts; a mix TileLang refuses is still reported at the user's line.
#include "frontends/cpp/promotion.h"

#include <gtest/gtest.h>

#include <string>

#include "frontends/cpp/dsl.h"
#include "tile_ir/printer.h"

namespace tile_ir::dsl {
namespace {

struct Case {
  DataType a, b;
  std::optional<DataType> common;
};

TEST(PromotionTest, TheTypeTwoOperandsMeetAt) {
  const Case cases[] = {
      {kF16, kF32, kF32},       {kF32, kF64, kF64},       {kI32, kF32, kF32},
      {kI64, kF16, kF16},       {kBF16, kF16, kF16},      {kBF16, kF32, kF32},
      {kF8E4M3, kBF16, kBF16},  {kI32, kBF16, kBF16},     {kI8, kF8E5M2, kF8E5M2},
      {kBool, kF16, kF16},      {kI8, kI32, kI32},        {kI4, kI64, kI64},
      {kU8, kI8, kU8},          {kU8, kI16, kI16},        {kBool, kI32, kI32},
      {kU32, kI32, kU32},       {kU16, kI32, kI32},       {kU32, kI64, kI64},
      {kU64, kI64, kU64},       {kU8, kU32, kU32},        {kU64, kF16, kF16},
      {kF8E4M3, kF8E5M2, std::nullopt}, {kF32.with_lanes(4), kF32, std::nullopt},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(CommonType(c.a, c.b), c.common) << c.a.ToString() << " " << c.b.ToString();
    EXPECT_EQ(CommonType(c.b, c.a), c.common) << c.b.ToString() << " " << c.a.ToString();
  }
}

TEST(PromotionTest, MixedOperandsAndStoresAreCastExplicitly) {
  KernelBuilder k("mixed");
  E N = k.Dim("N");
  Tensor H = k.Param("H", kF16, {N});
  Tensor X = k.Param("X", kF32, {N});
  Tensor Y = k.Param("Y", kF16, {N});
  Tensor A = k.Param("A", kI8, {N});
  Tensor U = k.Param("U", kU8, {N});
  Tensor C = k.Param("C", kI32, {N});
  k.Launch({1}, {64});
  Tensor acc = alloc_fragment("acc", {64}, kF32);
  fill(acc, H(0));
  parallel(64, [&](E i) {
    acc(i) = acc(i) + H(i);     // f32 += f16
    X(i) = X(i) / N;            // a float divided by an int dim
    Y(i) = X(i) * 3.0;          // an f32 value stored into an f16 buffer
    C(i) = A(i) + C(i);         // i8 meets i32 at i32
    A(i) = U(i) + A(i);         // u8 meets i8 at u8, stored back as i8
    C(i) = X(i) * 2.0;          // a float stored into an integer buffer
  });
  absl::StatusOr<Kernel> kernel = k.Finish();
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::string text = Print(**kernel);
  for (const char* expected : {
           "fill acc = cast<f32>(H[0]);",
           "acc[i] = acc[i] + cast<f32>(H[i]);",
           "X[i] = X[i] / cast<f32>(N);",
           "Y[i] = cast<f16>(X[i] * 3.0);",
           "C[i] = cast<i32>(A[i]) + C[i];",
           "A[i] = cast<i8>(U[i] + cast<u8>(A[i]));",
           "C[i] = cast<i32>(X[i] * 2.0);",
       }) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
  }
}

TEST(PromotionTest, TwoFloat8FormatsStayRefusedAtTheUsersLine) {
  KernelBuilder k("f8_mix");
  Tensor A = k.Param("A", kF8E4M3, {64});
  Tensor B = k.Param("B", kF8E5M2, {64});
  k.Launch({1}, {64});
  const int line = __LINE__ + 1;
  parallel(64, [&](E i) { A(i) = A(i) + B(i); });
  absl::StatusOr<Kernel> kernel = k.Finish();
  ASSERT_FALSE(kernel.ok());
  std::string message(kernel.status().message());
  EXPECT_NE(message.find("promotion_test.cc:" + std::to_string(line)), std::string::npos)
      << message;
  EXPECT_NE(message.find("different types: f8e4m3 and f8e5m2"), std::string::npos) << message;
}

}  // namespace
}  // namespace tile_ir::dsl
