#include "runtime/argument_signature.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace tile_ir::runtime {
namespace {

struct Tensor {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  DLTensor dl{};

  Tensor(void* data, std::vector<int64_t> s, std::vector<int64_t> st = {})
      : shape(std::move(s)), strides(std::move(st)) {
    dl.data = data;
    dl.device = {kDLCUDA, 0};
    dl.ndim = static_cast<int32_t>(shape.size());
    dl.dtype = {kDLFloat, 16, 1};
    dl.shape = shape.data();
    dl.strides = strides.empty() ? nullptr : strides.data();
  }
};

TEST(ArgumentSignatureTest, NothingMatchesBeforeARecord) {
  ArgumentSignature signature;
  EXPECT_FALSE(signature.Matches({}));
}

TEST(ArgumentSignatureTest, OnlyTheDataPointersMayDiffer) {
  float a = 0, b = 0;
  Tensor x(&a, {4, 8});
  Tensor y(&b, {4, 8});
  ArgumentSignature signature;
  signature.Record({KernelArg::Tensor(&x.dl), KernelArg::Scalar(1.5)});
  EXPECT_TRUE(signature.Matches({KernelArg::Tensor(&y.dl), KernelArg::Scalar(1.5)}));

  Tensor other_shape(&a, {4, 9});
  EXPECT_FALSE(signature.Matches({KernelArg::Tensor(&other_shape.dl), KernelArg::Scalar(1.5)}));
  Tensor other_rank(&a, {32});
  EXPECT_FALSE(signature.Matches({KernelArg::Tensor(&other_rank.dl), KernelArg::Scalar(1.5)}));
  Tensor strided(&a, {4, 8}, {16, 1});
  EXPECT_FALSE(signature.Matches({KernelArg::Tensor(&strided.dl), KernelArg::Scalar(1.5)}));
  EXPECT_FALSE(signature.Matches({KernelArg::Tensor(&y.dl), KernelArg::Scalar(2.5)}));
  EXPECT_FALSE(signature.Matches({KernelArg::Tensor(&y.dl)}));
  EXPECT_FALSE(signature.Matches({KernelArg::Scalar(1.5), KernelArg::Tensor(&y.dl)}));

  Tensor other_dtype(&b, {4, 8});
  other_dtype.dl.dtype = {kDLBfloat, 16, 1};
  EXPECT_FALSE(signature.Matches({KernelArg::Tensor(&other_dtype.dl), KernelArg::Scalar(1.5)}));
  Tensor other_device(&b, {4, 8});
  other_device.dl.device = {kDLCUDA, 1};
  EXPECT_FALSE(signature.Matches({KernelArg::Tensor(&other_device.dl), KernelArg::Scalar(1.5)}));
  Tensor host(&b, {4, 8});
  host.dl.device = {kDLCPU, 0};
  EXPECT_FALSE(signature.Matches({KernelArg::Tensor(&host.dl), KernelArg::Scalar(1.5)}));
  Tensor offset(&b, {4, 8});
  offset.dl.byte_offset = 16;
  EXPECT_FALSE(signature.Matches({KernelArg::Tensor(&offset.dl), KernelArg::Scalar(1.5)}));
}

TEST(ArgumentSignatureTest, StridesAndScalarsCompareExactly) {
  float a = 0;
  Tensor x(&a, {4, 8}, {16, 1});
  ArgumentSignature signature;
  signature.Record({KernelArg::Tensor(&x.dl), KernelArg::Scalar(std::nan(""))});
  Tensor same(&a, {4, 8}, {16, 1});
  EXPECT_TRUE(signature.Matches({KernelArg::Tensor(&same.dl), KernelArg::Scalar(std::nan(""))}));
  Tensor compact(&a, {4, 8});
  EXPECT_FALSE(
      signature.Matches({KernelArg::Tensor(&compact.dl), KernelArg::Scalar(std::nan(""))}));
  Tensor other(&a, {4, 8}, {8, 1});
  EXPECT_FALSE(signature.Matches({KernelArg::Tensor(&other.dl), KernelArg::Scalar(std::nan(""))}));
  // -0.0 and 0.0 bind to the same integer, but a float parameter would see the sign.
  signature.Record({KernelArg::Scalar(0.0)});
  EXPECT_FALSE(signature.Matches({KernelArg::Scalar(-0.0)}));
  signature.Clear();
  EXPECT_FALSE(signature.Matches({KernelArg::Scalar(0.0)}));
}

// 2^53 and 2^53 + 1 are one double; as integers they are two values (issue 37).
TEST(ArgumentSignatureTest, IntegerScalarsCompareExactly) {
  constexpr int64_t kTwoTo53 = int64_t{1} << 53;
  ArgumentSignature signature;
  signature.Record({KernelArg::Integer(kTwoTo53)});
  EXPECT_TRUE(signature.Matches({KernelArg::Integer(kTwoTo53)}));
  EXPECT_FALSE(signature.Matches({KernelArg::Integer(kTwoTo53 + 1)}));
  EXPECT_FALSE(signature.Matches({KernelArg::Scalar(static_cast<double>(kTwoTo53))}));
  signature.Record({KernelArg::Scalar(2.0)});
  EXPECT_FALSE(signature.Matches({KernelArg::Integer(int64_t{0x4000000000000000})}));
}

}  // namespace
}  // namespace tile_ir::runtime
