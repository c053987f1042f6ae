// The C++ API builds the IR a TileLang user would expect, records the user's
// source lines, and reports invalid kernels at those lines.
#include <gtest/gtest.h>

#include <string>

#include "frontends/cpp/dsl.h"
#include "tile_ir/printer.h"

namespace tile_ir::dsl {
namespace {

absl::StatusOr<Kernel> BuildGemm(DataType in_dtype, int block_m, int block_n, int block_k) {
  KernelBuilder k("gemm");
  E M = k.Dim("M"), N = k.Dim("N"), K = k.Dim("K");
  Tensor A = k.Param("A", in_dtype, {M, K});
  Tensor B = k.Param("B", in_dtype, {K, N});
  Tensor C = k.Param("C", kF32, {M, N});
  std::vector<E> b = k.Launch({ceildiv(N, block_n), ceildiv(M, block_m)}, {128});
  E bx = b[0], by = b[1];
  k.UseSwizzle(8);
  Tensor A_s = alloc_shared("A_s", {block_m, block_k}, in_dtype);
  Tensor B_s = alloc_shared("B_s", {block_k, block_n}, in_dtype);
  Tensor C_l = alloc_fragment("C_l", {block_m, block_n}, kF32);
  clear(C_l);
  pipelined(ceildiv(K, block_k), 3, [&](E ko) {
    copy(A.tile({by * block_m, ko * block_k}), A_s);
    copy(B.tile({ko * block_k, bx * block_n}), B_s);
    gemm(A_s, B_s, C_l);
  });
  copy(C_l, C.tile({by * block_m, bx * block_n}));
  return k.Finish();
}

TEST(DslTest, GemmReadsLikeTheTileProgram) {
  absl::StatusOr<Kernel> kernel = BuildGemm(kF16, 128, 128, 32);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::string text = Print(**kernel);
  EXPECT_NE(text.find("kernel gemm<M: i32, N: i32, K: i32>(A: f16[M, K], B: f16[K, N], C: f32[M, N])"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("for k in 0 +: ceildiv(K, 32) pipelined(num_stages=3)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("copy A[by * 128 +: 128, k * 32 +: 32] -> A_s;"), std::string::npos) << text;
  EXPECT_NE(text.find("fill C_l = 0.0;"), std::string::npos) << text;
  EXPECT_NE(text.find("copy C_l -> C[by * 128 +: 128, bx * 128 +: 128];"), std::string::npos)
      << text;
  EXPECT_NE(text.find("swizzle(panel=8, order=row)"), std::string::npos) << text;
}

TEST(DslTest, StatementsCarryTheCallersLine) {
  KernelBuilder k("scale");
  E N = k.Dim("N");
  Tensor X = k.Param("X", kF32, {N});
  E bx = k.Launch({ceildiv(N, 64)}, {64})[0];
  const int line = __LINE__ + 1;
  parallel(64, [&](E i) { X(bx * 64 + i) = X(bx * 64 + i) * 2; });
  absl::StatusOr<Kernel> kernel = k.Finish();
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  const auto* body = As<Seq>((*kernel)->body);
  ASSERT_NE(body, nullptr);
  const auto* loop = As<For>(body->stmts.at(0));
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->loc().line, line);
  EXPECT_NE(loop->loc().file.find("dsl_test.cc"), std::string::npos);
  const auto* store = As<Store>(As<Seq>(loop->body)->stmts.at(0));
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->loc().line, line);
  // The literal 2 took the element type.
  EXPECT_EQ(store->value->dtype(), kF32);
}

TEST(DslTest, RequireStatesAShapeContractAtTheCallersLine) {
  KernelBuilder k("grouped");
  E N = k.Dim("N");
  Tensor X = k.Param("X", kF32, {N});
  const int line = __LINE__ + 1;
  k.Require(N % 32 == 0);
  E bx = k.Launch({ceildiv(N, 64)}, {64})[0];
  parallel(64, [&](E i) { X(bx * 64 + i) = X(bx * 64 + i) * 2; });
  absl::StatusOr<Kernel> kernel = k.Finish();
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  ASSERT_EQ((*kernel)->requirements.size(), 1u);
  EXPECT_EQ((*kernel)->requirements[0].loc.line, line);
  EXPECT_NE(Print(MakeModule({*kernel})).find("{\n  require N % 32 == 0;\n"), std::string::npos);

  // A requirement the launch cannot evaluate is the user's error, at their line.
  KernelBuilder bad("bad");
  E M = bad.Dim("M");
  Tensor Y = bad.Param("Y", kF32, {M});
  bad.Require(Y(0) > 0.0);
  bad.Launch({1}, {1});
  absl::StatusOr<Kernel> refused = bad.Finish();
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("dsl_test.cc"), std::string::npos)
      << refused.status();
}

TEST(DslTest, GemmIntoASharedAccumulatorNamesTheUserLine) {
  KernelBuilder k("bad_gemm");
  Tensor A = k.Param("A", kF16, {64, 64});
  k.Launch({1}, {128});
  Tensor A_s = alloc_shared("A_s", {64, 64}, kF16);
  Tensor C_s = alloc_shared("C_s", {64, 64}, kF32);
  copy(A, A_s);
  const int line = __LINE__ + 1;
  gemm(A_s, A_s, C_s);
  absl::StatusOr<Kernel> kernel = k.Finish();
  ASSERT_FALSE(kernel.ok());
  std::string message(kernel.status().message());
  EXPECT_NE(message.find("dsl_test.cc:" + std::to_string(line)), std::string::npos) << message;
  EXPECT_NE(message.find("fragment"), std::string::npos) << message;
}

TEST(DslTest, CopyOfMismatchedShapesNamesTheUserLine) {
  KernelBuilder k("bad_copy");
  Tensor A = k.Param("A", kF32, {64, 64});
  k.Launch({1}, {128});
  Tensor A_s = alloc_shared("A_s", {64, 32}, kF32);
  const int line = __LINE__ + 1;
  copy(A.tile({0, 0}, {64, 64}), A_s);
  absl::StatusOr<Kernel> kernel = k.Finish();
  ASSERT_FALSE(kernel.ok());
  std::string message(kernel.status().message());
  EXPECT_NE(message.find("dsl_test.cc:" + std::to_string(line)), std::string::npos) << message;
}

TEST(DslTest, NamesAreMadeUniqueAndLayoutsAttach) {
  KernelBuilder k("names");
  k.Launch({1}, {32});
  Tensor a = alloc_fragment("t", {16, 16}, kF32);
  Tensor b = alloc_fragment("t", {16, 16}, kF32);
  annotate_layout(a, [](const std::vector<E>& ij) {
    return std::vector<E>{ij[0] * 2 + ij[1] / 8, ij[1] % 8};
  });
  fill(a, 1.0);
  copy(a, b);
  absl::StatusOr<Kernel> kernel = k.Finish();
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::string text = Print(**kernel);
  EXPECT_NE(text.find("alloc t: fragment f32[16, 16] layout("), std::string::npos) << text;
  EXPECT_NE(text.find("alloc t_1: fragment f32[16, 16];"), std::string::npos) << text;
  EXPECT_NE(text.find("copy t -> t_1;"), std::string::npos) << text;
}

// The 128-byte swizzle of a shared tile: 16-byte chunks XORed with the row.
TEST(DslTest, XorSwizzlesASharedLayoutWithCPrecedence) {
  KernelBuilder k("swizzle");
  k.Launch({1}, {32});
  Tensor a = alloc_shared("A_s", {8, 64}, kF16);
  annotate_layout(a, [](const std::vector<E>& ij) {
    return std::vector<E>{ij[0], (ij[1] / 8 ^ ij[0] % 8) * 8 + ij[1] % 8};
  });
  fill(a, 0.0);
  absl::StatusOr<Kernel> kernel = k.Finish();
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::string text = Print(**kernel);
  EXPECT_NE(text.find("-> (A_s_l0, (A_s_l1 / 8 ^ A_s_l0 % 8) * 8 + A_s_l1 % 8)"), std::string::npos)
      << text;
}

TEST(DslTest, XorOfFloatsNamesTheUserLine) {
  KernelBuilder k("float_xor");
  Tensor X = k.Param("X", kF32, {64});
  k.Launch({1}, {64});
  const int line = __LINE__ + 1;
  parallel(64, [&](E i) { X(i) = X(i) ^ X(i); });
  absl::StatusOr<Kernel> kernel = k.Finish();
  ASSERT_FALSE(kernel.ok());
  std::string message(kernel.status().message());
  EXPECT_NE(message.find("dsl_test.cc:" + std::to_string(line)), std::string::npos) << message;
  EXPECT_NE(message.find("xor needs integer operands, not f32"), std::string::npos) << message;
}

// & | << >> ~ with C's precedence, literals taking the other operand's type; reinterpret and the
// element-wise atomic maximum through call().
TEST(DslTest, BitOperatorsReinterpretAndAtomicMax) {
  KernelBuilder k("bits");
  Tensor X = k.Param("X", kI32, {64});
  Tensor B = k.Param("B", kU8, {64});
  Tensor F = k.Param("F", kF32, {64});
  Tensor M = k.Param("M", kI32, {1});
  k.Launch({1}, {64});
  parallel(64, [&](E i) {
    X(i) = (X(i) >> 3 & 255 | X(i) << i) ^ ~X(i);
    B(i) = ~B(i) >> cast(kU8, i);
    X(i) = reinterpret(kI32, F(i));
    evaluate(call("atomic_max_at", {M(0), X(i)}));
  });
  absl::StatusOr<Kernel> kernel = k.Finish();
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::string text = Print(**kernel);
  EXPECT_NE(text.find("X[i] = (X[i] >> 3 & 255 | X[i] << i) ^ (X[i] ^ -1);"), std::string::npos)
      << text;
  EXPECT_NE(text.find("B[i] = (B[i] ^ 255_u8) >> cast<u8>(i);"), std::string::npos) << text;
  EXPECT_NE(text.find("X[i] = reinterpret<i32>(F[i]);"), std::string::npos) << text;
  EXPECT_NE(text.find("eval atomic_max_at(M[0], X[i]);"), std::string::npos) << text;
}

// ~ on the unsigned types of ir_version 7 sets every bit: 2^bits - 1 as a constant, and for u64,
// whose 2^64 - 1 no IntImm holds, through the bits of an i64.
TEST(DslTest, BitwiseNotOfWideUnsignedTypes) {
  KernelBuilder k("unsigned_not");
  Tensor H = k.Param("H", kU16, {64});
  Tensor W = k.Param("W", kU32, {64});
  Tensor Q = k.Param("Q", kU64, {64});
  k.Launch({1}, {64});
  parallel(64, [&](E i) {
    H(i) = ~H(i);
    W(i) = ~W(i) >> 28;
    Q(i) = ~Q(i);
  });
  absl::StatusOr<Kernel> kernel = k.Finish();
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::string text = Print(**kernel);
  EXPECT_NE(text.find("H[i] = H[i] ^ 65535_u16;"), std::string::npos) << text;
  EXPECT_NE(text.find("W[i] = (W[i] ^ 4294967295_u32) >> 28_u32;"), std::string::npos) << text;
  EXPECT_NE(text.find("Q[i] = reinterpret<u64>(reinterpret<i64>(Q[i]) ^ -1_i64);"),
            std::string::npos)
      << text;
}

// The reductions of ir_version 6; the module's text declares that version.
TEST(DslTest, ReductionsOfVersion6) {
  KernelBuilder k("reductions");
  k.Launch({1}, {32});
  Tensor x = alloc_fragment("x", {16, 8}, kF32);
  Tensor flags = alloc_fragment("flags", {16, 8}, kI32);
  Tensor sums = alloc_fragment("sums", {16}, kF32);
  Tensor masks = alloc_fragment("masks", {16}, kI32);
  reduce_abssum(x, sums, 1);
  reduce_prod(x, sums, 1, false);
  reduce_bitand(flags, masks, 1);
  reduce_bitor(flags, masks, 1, false);
  reduce_bitxor(flags, masks, 1, false);
  absl::StatusOr<Kernel> kernel = k.Finish();
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::string text = Print(**kernel);
  for (const char* line : {"reduce abssum x -> sums {dim=1, clear=true};",
                           "reduce prod x -> sums {dim=1, clear=false};",
                           "reduce bitand flags -> masks {dim=1, clear=true};",
                           "reduce bitor flags -> masks {dim=1, clear=false};",
                           "reduce bitxor flags -> masks {dim=1, clear=false};"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
}

TEST(DslTest, MissingLaunchIsAnError) {
  KernelBuilder k("no_launch");
  absl::StatusOr<Kernel> kernel = k.Finish();
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(kernel.status().message().find("no Launch"), std::string::npos);
}

}  // namespace
}  // namespace tile_ir::dsl
