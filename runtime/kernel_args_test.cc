// BindArguments: what a good launch binds, and the message of every check.
#include "runtime/kernel_args.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "runtime/dtype_convert.h"
#include "runtime/host_buffer.h"

namespace tile_ir::runtime {
namespace {

using ::testing::HasSubstr;

constexpr char kModule[] = R"(ir_version 3;
producer "test" "1";

kernel gemm<M: i32, N: i32, K: i32>(A: f16[M, K], B: f16[K, N], C: f32[M, N])
    grid(bx: ceildiv(N, 128), by: ceildiv(M, 128)) threads(128) {
}

kernel scaled<N: i32>(X: f32[N], Y: f32[N * 2], alpha: f32, count: i8, W: f32[4, N], h: f16)
    grid(bx: ceildiv(N, 64)) threads(64) {
}

kernel strided<M: i32, N: i32, ld: i64>(A: f32[M, N] strides[ld, 1]) grid(bx: M) threads(1) {
}

kernel unbound<N: i32>(X: f32[N * 2]) grid(bx: 1) threads(1) {
}

kernel grouped<M: i32, K: i32>(A: f16[M, K], groups: i32) grid(bx: M) threads(1) {
  require K % 32 == 0;
  require K / 32 % groups == 0;
}

kernel wide<M: i64, N: i64>(A: f32[M, N]) grid(bx: 1) threads(1) {
}

kernel integers(n: i64, i: i32, u: u8, x: f32, d: f64, b: bf16) grid(bx: 1) threads(1) {
}
)";

class BindArgumentsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<Module> module = text::ParseModule(kModule, "test.tile");
    ASSERT_TRUE(module.ok()) << module.status();
    module_ = *std::move(module);
  }

  const KernelNode& Kernel(const std::string& name) {
    for (const tile_ir::Kernel& k : module_.kernels) {
      if (k->name == name) return *k;
    }
    ADD_FAILURE() << "no kernel " << name;
    return *module_.kernels.front();
  }

  DLTensor* Tensor(DataType dtype, std::vector<int64_t> shape) {
    buffers_.push_back(std::make_unique<HostBuffer>(dtype, std::move(shape)));
    return buffers_.back()->AsDLTensor();
  }

  std::string BindError(const std::string& kernel, const std::vector<KernelArg>& args,
                        int64_t min_alignment = 1) {
    absl::StatusOr<BoundArgs> bound = BindArguments(Kernel(kernel), args, kDLCPU, min_alignment);
    EXPECT_FALSE(bound.ok());
    return bound.ok() ? "" : std::string(bound.status().message());
  }

  // Good arguments for `scaled` with N = 8.
  std::vector<KernelArg> ScaledArgs() {
    return {KernelArg::Tensor(Tensor(kF32, {8})),
            KernelArg::Tensor(Tensor(kF32, {16})),
            KernelArg::Scalar(0.5),
            KernelArg::Scalar(-3),
            KernelArg::Tensor(Tensor(kF32, {4, 8})),
            KernelArg::Scalar(1.0 / 3.0)};
  }

  Module module_;
  std::vector<std::unique_ptr<HostBuffer>> buffers_;
};

TEST_F(BindArgumentsTest, BindsDimsGridPointersAndScalars) {
  std::vector<KernelArg> args = {KernelArg::Tensor(Tensor(kF16, {1000, 333})),
                                 KernelArg::Tensor(Tensor(kF16, {333, 777})),
                                 KernelArg::Tensor(Tensor(kF32, {1000, 777}))};
  absl::StatusOr<BoundArgs> bound = BindArguments(Kernel("gemm"), args, kDLCPU, 64);
  ASSERT_TRUE(bound.ok()) << bound.status();
  EXPECT_EQ(bound->dims, (std::vector<int64_t>{1000, 777, 333}));
  EXPECT_EQ(bound->grid[0], 7);
  EXPECT_EQ(bound->grid[1], 8);
  EXPECT_EQ(bound->grid[2], 1);
  EXPECT_EQ(bound->data[1], buffers_[1]->data());

  std::vector<KernelArg> scaled = ScaledArgs();
  bound = BindArguments(Kernel("scaled"), scaled, kDLCPU, 1);
  ASSERT_TRUE(bound.ok()) << bound.status();
  EXPECT_EQ(bound->dims, (std::vector<int64_t>{8}));
  EXPECT_EQ(bound->data[2], nullptr);
  float alpha;
  std::memcpy(&alpha, &bound->scalar_storage[2], sizeof alpha);
  EXPECT_EQ(alpha, 0.5f);
  int8_t count;
  std::memcpy(&count, &bound->scalar_storage[3], sizeof count);
  EXPECT_EQ(count, -3);
  uint16_t h;
  std::memcpy(&h, &bound->scalar_storage[5], sizeof h);
  EXPECT_EQ(h, DoubleToHalf(1.0 / 3.0));
  EXPECT_EQ(bound->int_values.at(Kernel("scaled").params[3].scalar.get()), -3);
}

TEST_F(BindArgumentsTest, ArgumentCount) {
  EXPECT_EQ(BindError("gemm", {KernelArg::Tensor(Tensor(kF16, {4, 4}))}),
            "kernel 'gemm': expected 3 arguments (A, B, C), got 1");
}

TEST_F(BindArgumentsTest, TensorExpected) {
  EXPECT_EQ(BindError("gemm", {KernelArg::Tensor(Tensor(kF16, {4, 4})), KernelArg::Scalar(2),
                               KernelArg::Tensor(Tensor(kF32, {4, 4}))}),
            "kernel 'gemm': argument 2 ('B'): expected a tensor, got a scalar");
}

TEST_F(BindArgumentsTest, DeviceType) {
  DLTensor* a = Tensor(kF16, {4, 4});
  a->device.device_type = kDLCUDA;
  EXPECT_EQ(BindError("gemm", {KernelArg::Tensor(a), KernelArg::Tensor(Tensor(kF16, {4, 4})),
                               KernelArg::Tensor(Tensor(kF32, {4, 4}))}),
            "kernel 'gemm': argument 1 ('A'): expected a tensor on cpu, got one on cuda");
}

// Found by //fuzz:kernel_args_fuzzer (fuzz/corpus/kernel_args/): a device type outside the
// values this DLPack header's enum holds, as a newer DLPack's producer stores (kDLHexagon is
// 16), is read as a number and named, not loaded as a DLDeviceType (undefined behaviour).
TEST_F(BindArgumentsTest, DeviceTypeOfANewerDLPack) {
  for (const int32_t stored : {16, -83}) {
    DLTensor* a = Tensor(kF16, {4, 4});
    std::memcpy(&a->device.device_type, &stored, sizeof(stored));
    EXPECT_EQ(BindError("gemm", {KernelArg::Tensor(a), KernelArg::Tensor(Tensor(kF16, {4, 4})),
                                 KernelArg::Tensor(Tensor(kF32, {4, 4}))}),
              absl::StrCat("kernel 'gemm': argument 1 ('A'): expected a tensor on cpu, got one on "
                           "device type ",
                           stored));
  }
}

TEST_F(BindArgumentsTest, Dtype) {
  EXPECT_EQ(BindError("gemm", {KernelArg::Tensor(Tensor(kF16, {4, 4})),
                               KernelArg::Tensor(Tensor(kF32, {4, 4})),
                               KernelArg::Tensor(Tensor(kF32, {4, 4}))}),
            "kernel 'gemm': argument 2 ('B'): expected f16, got f32");
  DLTensor* c = Tensor(kF32, {4, 4});
  c->dtype = DLDataType{kDLComplex, 64, 1};
  EXPECT_EQ(BindError("gemm", {KernelArg::Tensor(Tensor(kF16, {4, 4})),
                               KernelArg::Tensor(Tensor(kF16, {4, 4})), KernelArg::Tensor(c)}),
            "kernel 'gemm': argument 3 ('C'): expected f32, got an unsupported DLPack type "
            "(code 5, 64 bits, 1 lanes)");
}

TEST_F(BindArgumentsTest, Rank) {
  EXPECT_EQ(BindError("gemm", {KernelArg::Tensor(Tensor(kF16, {2, 3, 4})),
                               KernelArg::Tensor(Tensor(kF16, {4, 4})),
                               KernelArg::Tensor(Tensor(kF32, {4, 4}))}),
            "kernel 'gemm': argument 1 ('A'): expected rank 2 (f16[M, K]), got rank 3 [2, 3, 4]");
}

TEST_F(BindArgumentsTest, NegativeExtent) {
  DLTensor* a = Tensor(kF16, {4, 4});
  a->shape[0] = -1;
  EXPECT_EQ(BindError("gemm", {KernelArg::Tensor(a), KernelArg::Tensor(Tensor(kF16, {4, 4})),
                               KernelArg::Tensor(Tensor(kF32, {4, 4}))}),
            "kernel 'gemm': argument 1 ('A'): dimension 0 is negative (-1)");
}

TEST_F(BindArgumentsTest, DimensionsMustAgreeWithTheirFirstBinding) {
  EXPECT_EQ(BindError("gemm", {KernelArg::Tensor(Tensor(kF16, {100, 333})),
                               KernelArg::Tensor(Tensor(kF16, {300, 50})),
                               KernelArg::Tensor(Tensor(kF32, {100, 50}))}),
            "kernel 'gemm': parameter 'B' dimension 0 is 300 but K = 333 from parameter 'A'");
}

TEST_F(BindArgumentsTest, DimensionMustFitItsType) {
  DLTensor* a = Tensor(kF16, {1, 1});
  a->shape[0] = 3000000000;
  EXPECT_EQ(BindError("gemm", {KernelArg::Tensor(a), KernelArg::Tensor(Tensor(kF16, {1, 1})),
                               KernelArg::Tensor(Tensor(kF32, {1, 1}))}),
            "kernel 'gemm': parameter 'A' dimension 0 is 3000000000, which does not fit M's "
            "type i32");
}

TEST_F(BindArgumentsTest, ConstantExtent) {
  std::vector<KernelArg> args = ScaledArgs();
  args[4] = KernelArg::Tensor(Tensor(kF32, {5, 8}));
  EXPECT_EQ(BindError("scaled", args),
            "kernel 'scaled': parameter 'W' dimension 0 is 5 but must be 4");
}

TEST_F(BindArgumentsTest, ExpressionExtentIsCheckedAfterAllDims) {
  std::vector<KernelArg> args = ScaledArgs();
  args[1] = KernelArg::Tensor(Tensor(kF32, {15}));
  EXPECT_EQ(BindError("scaled", args),
            "kernel 'scaled': parameter 'Y' dimension 0 is 15 but N * 2 = 16");
}

TEST_F(BindArgumentsTest, UnboundDimension) {
  EXPECT_EQ(BindError("unbound", {KernelArg::Tensor(Tensor(kF32, {8}))}),
            "kernel 'unbound': dimension 'N' is not bound: no parameter's shape or strides has "
            "it as an entry of its own");
}

TEST_F(BindArgumentsTest, CompactUnlessStridesAreDeclared) {
  DLTensor* a = Tensor(kF16, {100, 333});
  int64_t column_major[] = {1, 100};
  a->strides = column_major;
  EXPECT_EQ(BindError("gemm", {KernelArg::Tensor(a), KernelArg::Tensor(Tensor(kF16, {333, 5})),
                               KernelArg::Tensor(Tensor(kF32, {100, 5}))}),
            "kernel 'gemm': argument 1 ('A'): the tensor is not dense row-major (strides [1, "
            "100] for shape [100, 333]); the parameter declares no strides");

  // Explicit compact strides are fine, and an extent-1 dimension's stride is ignored.
  int64_t compact[] = {333, 1};
  a->strides = compact;
  DLTensor* c = Tensor(kF32, {100, 1});
  int64_t odd[] = {1, 12345};
  c->strides = odd;
  EXPECT_TRUE(BindArguments(Kernel("gemm"),
                            {KernelArg::Tensor(a), KernelArg::Tensor(Tensor(kF16, {333, 1})),
                             KernelArg::Tensor(c)},
                            kDLCPU, 1)
                  .ok());
}

TEST_F(BindArgumentsTest, DeclaredStridesBindAndAreChecked) {
  HostBuffer storage(kF32, {10, 16});
  DLTensor view = *storage.AsDLTensor();
  int64_t shape[] = {10, 12};
  int64_t strides[] = {16, 1};
  view.shape = shape;
  view.strides = strides;
  absl::StatusOr<BoundArgs> bound =
      BindArguments(Kernel("strided"), {KernelArg::Tensor(&view)}, kDLCPU, 1);
  ASSERT_TRUE(bound.ok()) << bound.status();
  EXPECT_EQ(bound->dims, (std::vector<int64_t>{10, 12, 16}));
  EXPECT_EQ(bound->grid[0], 10);

  strides[1] = 2;
  EXPECT_EQ(BindError("strided", {KernelArg::Tensor(&view)}),
            "kernel 'strided': parameter 'A' stride 1 is 2 but must be 1");
  // No strides means compact: ld binds to 12.
  view.strides = nullptr;
  bound = BindArguments(Kernel("strided"), {KernelArg::Tensor(&view)}, kDLCPU, 1);
  ASSERT_TRUE(bound.ok()) << bound.status();
  EXPECT_EQ(bound->dims[2], 12);
}

TEST_F(BindArgumentsTest, Alignment) {
  std::vector<KernelArg> args = ScaledArgs();
  DLTensor* x = Tensor(kF32, {9});
  x->shape[0] = 8;
  x->byte_offset = 4;
  args[0] = KernelArg::Tensor(x);
  EXPECT_TRUE(BindArguments(Kernel("scaled"), args, kDLCPU, 4).ok());
  EXPECT_THAT(BindError("scaled", args, 16),
              HasSubstr("kernel 'scaled': argument 1 ('X'): the data pointer 0x"));
  EXPECT_THAT(BindError("scaled", args, 16), HasSubstr("is not aligned to 16 bytes"));
  x->byte_offset = 2;  // below the element size even when the caller asks for 1
  EXPECT_THAT(BindError("scaled", args, 1), HasSubstr("is not aligned to 4 bytes"));
  x->byte_offset = 0;
  x->data = nullptr;
  EXPECT_EQ(BindError("scaled", args),
            "kernel 'scaled': argument 1 ('X'): the tensor's data is NULL but it has elements");
}

// Found by //fuzz:kernel_args_fuzzer (fuzz/corpus/kernel_args/): the element count of a huge
// tensor overflowed (2^32 * 2^32 wrapped to 0), and a tensor without data passed as empty.
TEST_F(BindArgumentsTest, HugeTensorWithoutData) {
  DLTensor* a = Tensor(kF32, {1, 1});
  int64_t shape[] = {int64_t{1} << 32, int64_t{1} << 32};
  a->shape = shape;
  a->data = nullptr;
  EXPECT_EQ(BindError("wide", {KernelArg::Tensor(a)}),
            "kernel 'wide': argument 1 ('A'): the tensor's size overflows 64 bits (shape "
            "[4294967296, 4294967296])");
}

// Issue 37: every field of a DLTensor is checked before anything is read through it; a
// negative ndim aborted the process and one beyond the shape array crashed it.
TEST_F(BindArgumentsTest, MalformedTensorFieldsAreRefusedByName) {
  auto error = [&](auto forge) {
    std::vector<KernelArg> args = ScaledArgs();
    DLTensor* x = Tensor(kF32, {8});
    forge(*x);
    args[0] = KernelArg::Tensor(x);
    return BindError("scaled", args);
  };
  EXPECT_EQ(error([](DLTensor& t) { t.ndim = -1; }),
            "kernel 'scaled': argument 1 ('X'): the tensor's ndim is -1; expected rank 1 "
            "(f32[N])");
  EXPECT_EQ(error([](DLTensor& t) { t.ndim = 1 << 30; }),
            "kernel 'scaled': argument 1 ('X'): the tensor's ndim is 1073741824, more than 64; "
            "expected rank 1 (f32[N])");
  EXPECT_EQ(error([](DLTensor& t) { t.shape = nullptr; }),
            "kernel 'scaled': argument 1 ('X'): the tensor's shape is NULL with ndim 1");
  static int64_t negative[] = {-8};
  EXPECT_EQ(error([](DLTensor& t) { t.shape = negative; }),
            "kernel 'scaled': argument 1 ('X'): dimension 0 is negative (-8)");
  static int64_t huge_stride[] = {int64_t{1} << 62};
  EXPECT_EQ(error([](DLTensor& t) { t.strides = huge_stride; }),
            "kernel 'scaled': argument 1 ('X'): the tensor's size overflows 64 bits (shape [8], "
            "strides [4611686018427387904])");
  static int64_t min_stride[] = {std::numeric_limits<int64_t>::min()};
  EXPECT_THAT(error([](DLTensor& t) { t.strides = min_stride; }),
              HasSubstr("the tensor's size overflows 64 bits"));
  EXPECT_THAT(error([](DLTensor& t) { t.byte_offset = ~uint64_t{0} - 3; }),
              HasSubstr("argument 1 ('X'): the tensor's byte_offset 18446744073709551612 puts its "
                        "data past the end of the address space"));
  EXPECT_THAT(error([](DLTensor& t) { t.dtype.lanes = 0; }),
              HasSubstr("argument 1 ('X'): expected f32, got an unsupported DLPack type (code 2, "
                        "32 bits, 0 lanes)"));
  // A rank mismatch with a NULL shape said "got rank 1 []".
  EXPECT_EQ(BindError("gemm", {KernelArg::Tensor([&] {
                                 DLTensor* t = Tensor(kF16, {4});
                                 t->shape = nullptr;
                                 return t;
                               }()),
                               KernelArg::Tensor(Tensor(kF16, {4, 4})),
                               KernelArg::Tensor(Tensor(kF32, {4, 4}))}),
            "kernel 'gemm': argument 1 ('A'): the tensor's shape is NULL with ndim 1");
}

// Found by the fuzz campaign of 2026-12-03 (fuzz/corpus/kernel_args/): an empty tensor
// without data but with a byte offset had the offset added to its null pointer.
TEST_F(BindArgumentsTest, EmptyTensorWithoutDataIgnoresItsOffset) {
  DLTensor* a = Tensor(kF32, {1, 1});
  int64_t shape[] = {0, 5};
  a->shape = shape;
  a->data = nullptr;
  a->byte_offset = 98351252202867;
  absl::StatusOr<BoundArgs> bound =
      BindArguments(Kernel("wide"), {KernelArg::Tensor(a)}, kDLCPU, 1);
  ASSERT_TRUE(bound.ok()) << bound.status();
  EXPECT_EQ(bound->data[0], nullptr);
  EXPECT_EQ(bound->dims, (std::vector<int64_t>{0, 5}));
}

TEST_F(BindArgumentsTest, Scalars) {
  std::vector<KernelArg> args = ScaledArgs();
  args[2] = KernelArg::Tensor(Tensor(kF32, {1}));
  EXPECT_EQ(BindError("scaled", args),
            "kernel 'scaled': argument 3 ('alpha'): expected a scalar (f32), got a tensor");
  args = ScaledArgs();
  args[3] = KernelArg::Scalar(2.5);
  EXPECT_EQ(BindError("scaled", args),
            "kernel 'scaled': argument 4 ('count'): expected an integer for i8, got 2.5");
  args[3] = KernelArg::Scalar(300);
  EXPECT_EQ(BindError("scaled", args),
            "kernel 'scaled': argument 4 ('count'): 300 is out of range for i8 [-128, 127]");
  args[3] = KernelArg::Scalar(-129);
  EXPECT_EQ(BindError("scaled", args),
            "kernel 'scaled': argument 4 ('count'): -129 is out of range for i8 [-128, 127]");
}

// 2^53 + 1 has no double; an int64 argument carries it exactly (issue 37).
TEST_F(BindArgumentsTest, IntegerScalarsAreExact) {
  constexpr int64_t kBig = (int64_t{1} << 53) + 1;
  std::vector<KernelArg> args = {KernelArg::Integer(kBig), KernelArg::Integer(-5),
                                 KernelArg::Integer(255),  KernelArg::Integer(kBig),
                                 KernelArg::Integer(kBig), KernelArg::Integer(257)};
  absl::StatusOr<BoundArgs> bound = BindArguments(Kernel("integers"), args, kDLCPU, 1);
  ASSERT_TRUE(bound.ok()) << bound.status();
  int64_t n;
  std::memcpy(&n, &bound->scalar_storage[0], sizeof n);
  EXPECT_EQ(n, kBig);
  EXPECT_EQ(bound->int_values.at(Kernel("integers").params[0].scalar.get()), kBig);
  int32_t i;
  std::memcpy(&i, &bound->scalar_storage[1], sizeof i);
  EXPECT_EQ(i, -5);
  EXPECT_EQ(static_cast<uint8_t>(bound->scalar_storage[2]), 255);
  float x;
  std::memcpy(&x, &bound->scalar_storage[3], sizeof x);
  EXPECT_EQ(x, 9007199254740992.0f);
  double d;
  std::memcpy(&d, &bound->scalar_storage[4], sizeof d);
  EXPECT_EQ(d, 9007199254740992.0);  // ties to even
  // 257 is halfway between bf16's 256 and 258: ties to even.
  EXPECT_EQ(static_cast<uint16_t>(bound->scalar_storage[5]), DoubleToBFloat16(256));

  // The nearest value, rounded once: 2^62 + 2^54 + 1 is just above the midpoint of bf16's
  // neighbours 2^62 and 2^62 + 2^55, and a double (2^62 + 2^54, the midpoint) would round
  // it to even, down.
  args[5] = KernelArg::Integer((int64_t{1} << 62) + (int64_t{1} << 54) + 1);
  bound = BindArguments(Kernel("integers"), args, kDLCPU, 1);
  ASSERT_TRUE(bound.ok()) << bound.status();
  EXPECT_EQ(static_cast<uint16_t>(bound->scalar_storage[5]),
            DoubleToBFloat16(std::ldexp(1.0, 62) + std::ldexp(1.0, 55)));
  args[3] = KernelArg::Integer(std::numeric_limits<int64_t>::min());
  bound = BindArguments(Kernel("integers"), args, kDLCPU, 1);
  ASSERT_TRUE(bound.ok()) << bound.status();
  std::memcpy(&x, &bound->scalar_storage[3], sizeof x);
  EXPECT_EQ(x, -9223372036854775808.0f);
}

TEST_F(BindArgumentsTest, IntegerScalarsOutOfRangeNameTheParameterAndTheRange) {
  std::vector<KernelArg> args = {KernelArg::Integer(0), KernelArg::Integer(int64_t{1} << 31),
                                 KernelArg::Integer(0), KernelArg::Integer(0),
                                 KernelArg::Integer(0), KernelArg::Integer(0)};
  EXPECT_EQ(BindError("integers", args),
            "kernel 'integers': argument 2 ('i'): 2147483648 is out of range for i32 "
            "[-2147483648, 2147483647]");
  args[1] = KernelArg::Integer(0);
  args[2] = KernelArg::Integer(-1);
  EXPECT_EQ(BindError("integers", args),
            "kernel 'integers': argument 3 ('u'): -1 is out of range for u8 [0, 255]");
  args[2] = KernelArg::Scalar(9223372036854775808.0);
  EXPECT_EQ(BindError("integers", args),
            "kernel 'integers': argument 3 ('u'): 9.22337e+18 is out of range for u8 [0, 255]");
}

// u16 and u32 scalars take their whole range; u64 ones 0 to INT64_MAX, which a KernelArg's
// int64 holds, and a larger value is refused naming that range.
TEST(BindUnsignedScalarsTest, StoreTheirWidthAndNameTheirRange) {
  absl::StatusOr<Module> module = text::ParseModule(
      "ir_version 7;\nproducer \"t\" \"1\";\n\n"
      "kernel unsigned_scalars(h: u16, w: u32, q: u64) grid(bx: 1) threads(1) {\n}\n",
      "u.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  const KernelNode& kernel = *module->kernels[0];
  std::vector<KernelArg> args = {KernelArg::Integer(65535), KernelArg::Integer(4294967295),
                                 KernelArg::Integer(std::numeric_limits<int64_t>::max())};
  absl::StatusOr<BoundArgs> bound = BindArguments(kernel, args, kDLCPU, 1);
  ASSERT_TRUE(bound.ok()) << bound.status();
  uint16_t h;
  std::memcpy(&h, &bound->scalar_storage[0], sizeof h);
  EXPECT_EQ(h, 65535);
  uint32_t w;
  std::memcpy(&w, &bound->scalar_storage[1], sizeof w);
  EXPECT_EQ(w, 4294967295u);
  uint64_t q;
  std::memcpy(&q, &bound->scalar_storage[2], sizeof q);
  EXPECT_EQ(q, static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
  args[1] = KernelArg::Integer(int64_t{1} << 32);
  absl::StatusOr<BoundArgs> refused = BindArguments(kernel, args, kDLCPU, 1);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "kernel 'unsigned_scalars': argument 2 ('w'): 4294967296 is out of range for u32 "
            "[0, 4294967295]");
  args[1] = KernelArg::Integer(0);
  args[2] = KernelArg::Scalar(18446744073709551615.0);
  refused = BindArguments(kernel, args, kDLCPU, 1);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            "kernel 'unsigned_scalars': argument 3 ('q'): 1.84467e+19 is out of range for u64 "
            "[0, 9223372036854775807]");
}

TEST_F(BindArgumentsTest, GridExtentMustBePositive) {
  std::vector<KernelArg> args = {KernelArg::Tensor(Tensor(kF32, {0})),
                                 KernelArg::Tensor(Tensor(kF32, {0})),
                                 KernelArg::Scalar(1),
                                 KernelArg::Scalar(1),
                                 KernelArg::Tensor(Tensor(kF32, {4, 0})),
                                 KernelArg::Scalar(1)};
  EXPECT_EQ(BindError("scaled", args),
            "kernel 'scaled': grid axis bx has ceildiv(N, 64) = 0 blocks; it must be from 1 to "
            "2147483647");
}

TEST(DeviceTypeNameTest, NamesKnownTypesAndNumbersOthers) {
  EXPECT_EQ(DeviceTypeName(kDLCPU), "cpu");
  EXPECT_EQ(DeviceTypeName(kDLROCM), "rocm");
  EXPECT_EQ(DeviceTypeName(static_cast<DLDeviceType>(99)), "device type 99");
}

TEST_F(BindArgumentsTest, ShapeRequirementsAreCheckedNamingTheValues) {
  absl::StatusOr<BoundArgs> good =
      BindArguments(Kernel("grouped"),
                    {KernelArg::Tensor(Tensor(kF16, {3, 128})), KernelArg::Scalar(2)}, kDLCPU, 1);
  EXPECT_TRUE(good.ok()) << good.status();
  EXPECT_EQ(BindError("grouped", {KernelArg::Tensor(Tensor(kF16, {3, 333})), KernelArg::Scalar(2)}),
            "kernel 'grouped': the kernel requires K % 32 == 0 (test.tile:19:3), which these "
            "arguments break: K = 333");
  EXPECT_EQ(BindError("grouped", {KernelArg::Tensor(Tensor(kF16, {3, 96})), KernelArg::Scalar(2)}),
            "kernel 'grouped': the kernel requires K / 32 % groups == 0 (test.tile:20:3), which "
            "these arguments break: K = 96, groups = 2");
  EXPECT_THAT(
      BindError("grouped", {KernelArg::Tensor(Tensor(kF16, {3, 64})), KernelArg::Scalar(0)}),
      HasSubstr("shape requirement K / 32 % groups == 0 (test.tile:20:3): "));
}

}  // namespace
}  // namespace tile_ir::runtime
