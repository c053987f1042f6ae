// The CUDA code generator on small thread-level modules: names, literals,
// casts, control flow, atomics, target intrinsics, the shared pool and the
// launch shape, checked in the emitted text.
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "targets/cuda/cuda_codegen.h"
#include "targets/cuda/intrinsics.h"

namespace tile_ir::cuda {
namespace {

constexpr char kHeader[] = "ir_version 1;\nproducer \"test\" \"1\";\n\n";

absl::StatusOr<std::string> Emit(const std::string& kernels) {
  absl::StatusOr<Module> module = text::ParseModule(kHeader + kernels, "test.tile");
  if (!module.ok()) return module.status();
  return EmitCudaSource(*module);
}

// Fails the test unless `source` contains `line` (leading spaces ignored).
void ExpectLine(const absl::StatusOr<std::string>& source, const std::string& line) {
  ASSERT_TRUE(source.ok()) << source.status();
  EXPECT_TRUE(absl::StrContains(*source, line)) << "missing: " << line << "\nin:\n" << *source;
}

TEST(CudaCodegenTest, NamesAvoidKeywordsAndLibraryNames) {
  absl::StatusOr<std::string> source = Emit(R"(
kernel names(tl: f32[4], smem: f32[4], int: i32) grid(bx: 1) threads(1) {
  let expf: i32 = int + 1;
  let a.b: i32 = expf * 2;
  tl[0] = cast<f32>(a.b);
  smem[1] = cast<f32>(expf);
}
)");
  ExpectLine(source, "names(float* tl_1, float* smem_1, int int_1) {");
  ExpectLine(source, "const int expf_1 = int_1 + 1;");
  ExpectLine(source, "const int a_b = expf_1 * 2;");
  ExpectLine(source, "tl_1[0] = static_cast<float>(a_b);");
}

TEST(CudaCodegenTest, Literals) {
  absl::StatusOr<std::string> source = Emit(R"(
kernel literals(F: f32[4], D: f64[2], H: f16[2], L: i64[2], U: u8[2]) grid(bx: 1) threads(1) {
  F[0] = inf;
  F[1] = -inf;
  F[2] = nan;
  F[3] = -0.0;
  D[0] = 0.1_f64;
  D[1] = 1e+300_f64;
  H[0] = 0.5_f16;
  H[1] = 0.1_f16;
  L[0] = -9223372036854775808_i64;
  L[1] = 7_i64;
  U[0] = 255_u8;
}
)");
  ExpectLine(source, "F[0] = tl::infinity<float>();");
  ExpectLine(source, "F[1] = -tl::infinity<float>();");
  ExpectLine(source, "F[2] = tl::quiet_nan<float>();");
  ExpectLine(source, "F[3] = -0.0f;");
  ExpectLine(source, "D[0] = 0.1;");
  ExpectLine(source, "D[1] = 1e+300;");
  ExpectLine(source, "H[0] = __float2half_rn(0.5f);");
  ExpectLine(source, "L[0] = (-9223372036854775807LL - 1);");
  ExpectLine(source, "L[1] = 7LL;");
  ExpectLine(source, "U[0] = static_cast<unsigned char>(255);");
}

// exp2_ftz is the device library's one-instruction exp2 for every float type (device/math.cuh);
// exp2 stays CUDA's exp2f.
TEST(CudaCodegenTest, FlushingExp2) {
  absl::StatusOr<std::string> source = Emit(R"(
kernel exps(F: f32[2], D: f64[1], H: f16[1]) grid(bx: 1) threads(1) {
  F[0] = exp2_ftz(F[0]);
  F[1] = exp2(F[1]);
  D[0] = exp2_ftz(D[0]);
  H[0] = exp2_ftz(H[0]);
}
)");
  ExpectLine(source, "F[0] = tl::exp2_ftz(F[0]);");
  ExpectLine(source, "F[1] = exp2f(F[1]);");
  ExpectLine(source, "D[0] = tl::exp2_ftz(D[0]);");
  ExpectLine(source, "H[0] = tl::exp2_ftz(H[0]);");
}

TEST(CudaCodegenTest, Casts) {
  absl::StatusOr<std::string> source = Emit(R"(
kernel casts(F: f32[2], I8: i8[2], H: f16[2], B: bf16[2], Flags: bool[2], E: f8e5m2[2], N: i32)
    grid(bx: 1) threads(1) {
  I8[0] = cast<i8>(F[0]);
  H[0] = cast<f16>(N);
  B[0] = cast<bf16>(H[1]);
  F[1] = cast<f32>(Flags[0]);
  Flags[1] = cast<bool>(F[0]);
  E[0] = cast<f8e5m2>(H[1]);
  I8[1] = cast<i8>(N);
}
)");
  ExpectLine(source, "I8[0] = tl::saturate_cast<signed char>(F[0]);");
  ExpectLine(source, "H[0] = __double2half(static_cast<double>(N));");
  ExpectLine(source, "B[0] = __float2bfloat16_rn(__half2float(H[1]));");
  ExpectLine(source, "F[1] = static_cast<float>(Flags[0]);");
  ExpectLine(source, "Flags[1] = F[0] != 0;");
  ExpectLine(source, "E[0] = __nv_fp8_e5m2(H[1]);");
  ExpectLine(source, "I8[1] = static_cast<signed char>(N);");
}

TEST(CudaCodegenTest, ControlFlow) {
  absl::StatusOr<std::string> source = Emit(R"(
kernel control<N: i32>(X: i32[N], Y: i32[4]) grid(bx: 1) threads(1) {
  for k in 0 +: X[0] serial {
    if (k == 0) {
      Y[0] = 1;
    } else {
      if (k == 1) {
        Y[1] = 2;
      } else {
        Y[2] = 3;
      }
    }
  }
  for j in 2 +: N serial {
    Y[3] = -(-j);
  }
}
)");
  ExpectLine(source, "for (int k = 0, k_end = k + X[0]; k < k_end; ++k) {");
  ExpectLine(source, "} else if (k == 1) {");
  ExpectLine(source, "for (int j = 2; j < 2 + N; ++j) {");
  ExpectLine(source, "Y[3] = - -j;");
}

TEST(CudaCodegenTest, ThreadAxesAndLaunchBounds) {
  absl::StatusOr<std::string> source = Emit(R"(
kernel axes(Y: f32[4, 32]) grid(bx: 1) threads(32, 4) {
  for ty in 0 +: 4 thread_bound(y) {
    for tx in 0 +: 32 thread_bound(x) {
      Y[ty, tx] = 1.0;
    }
  }
}
)");
  ExpectLine(source, "void __launch_bounds__(128) axes(float* Y) {");
  ExpectLine(source, "  const int ty = threadIdx.y;\n  const int tx = threadIdx.x;\n");
  ExpectLine(source, "  Y[ty * 32 + tx] = 1.0f;");
}

TEST(CudaCodegenTest, Atomics) {
  absl::StatusOr<std::string> source = Emit(R"(
kernel atomics(C: f32[4], H: bf16[4], Q: i8[4]) grid(bx: 1) threads(1) {
  alloc acc: local f32[2];
  acc[0] = 0.0;
  eval atomic_add_at(C[1], 2.0);
  eval atomic_add_at(H[2], 1.0_bf16);
  eval atomic_add_at(Q[3], 1_i8);
  eval atomic_add_at(acc[0], C[0]);
}
)");
  ExpectLine(source, "tl::atomic_add(&C[1], 2.0f);");
  ExpectLine(source, "tl::atomic_add(&H[2], __float2bfloat16_rn(1.0f));");
  ExpectLine(source, "tl::atomic_add(&Q[3], static_cast<signed char>(1));");
  ExpectLine(source, "acc[0] = acc[0] + C[0];");
}

TEST(CudaCodegenTest, TargetIntrinsicsTakeAddressesAndTemplateArguments) {
  ASSERT_TRUE(RegisterCudaIntrinsic("cuda.test_gemm.mma", 4, 2, "a test intrinsic").ok());
  absl::StatusOr<std::string> source = Emit(R"(
kernel intrinsic(A: f16[16, 16], n: i32) grid(bx: 1) threads(32) {
  alloc C: local f32[8];
  for tx in 0 +: 32 thread_bound(x) {
    eval cuda.test_gemm.mma(A[tx % 16, 8], n * 2, 16, true);
    eval cuda.test_gemm.mma(C[0], 1, 8, false);
  }
}
)");
  ExpectLine(source, "tl::test_gemm::mma<16, true>(&A[tx % 16 * 16 + 8], n * 2);");
  ExpectLine(source, "tl::test_gemm::mma<8, false>(&C[0], 1);");
}

TEST(CudaCodegenTest, SharedPoolAndPackedI4) {
  absl::StatusOr<Module> module = text::ParseModule(absl::StrCat(kHeader, R"(
kernel pool(X: i4[64]) grid(bx: 1) threads(64) {
  alloc big: shared f32[8, 8] offset(0);
  alloc nibbles: shared i4[33] offset(256);
  for tx in 0 +: 64 thread_bound(x) {
    alloc own: local i4[3];
    own[2] = X[tx];
    nibbles[tx % 33] = own[2];
    big[tx / 8, tx % 8] = 1.0;
  }
}
)"),
                                                    "test.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  EXPECT_EQ(SharedMemoryBytes(*module->kernels.front()), 256 + 17);
  absl::StatusOr<std::string> source = EmitCudaSource(*module);
  ExpectLine(source, "extern __shared__ __align__(1024) unsigned char smem[];");
  ExpectLine(source, "unsigned char* nibbles = reinterpret_cast<unsigned char*>(smem + 256);");
  ExpectLine(source, "unsigned char own[2];");
  ExpectLine(source, "tl::store_i4_local(own, 2, tl::load_i4(X, tx));");
  ExpectLine(source, "tl::store_i4(nibbles, tx % 33, tl::load_i4(own, 2));");
}

TEST(CudaCodegenTest, PipelineIntrinsicsAndBarriers) {
  absl::StatusOr<std::string> source = Emit(R"(
kernel pipeline() grid(bx: 1) threads(64) {
  for tx in 0 +: 64 thread_bound(x) {
    eval async_commit();
    eval async_wait(2);
    barrier(block);
    barrier(warp);
  }
}
)");
  ExpectLine(source,
             "tl::cp_async_commit();\n  tl::cp_async_wait<2>();\n  __syncthreads();\n"
             "  __syncwarp();\n");
  // A kernel that never reads its indices does not declare them.
  ASSERT_TRUE(source.ok());
  EXPECT_FALSE(absl::StrContains(*source, "blockIdx")) << *source;
  EXPECT_FALSE(absl::StrContains(*source, "threadIdx")) << *source;
}

TEST(CudaCodegenTest, OneKernelAndOptions) {
  absl::StatusOr<Module> module = text::ParseModule(absl::StrCat(kHeader, R"(
kernel first(Y: f32[1]) grid(bx: 1) threads(1) {
  Y[0] = 1.0;
}

kernel second(Y: f32[1]) grid(bx: 1) threads(1) {
  Y[0] = 2.0;
}
)"),
                                                    "test.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  CudaCodegenOptions options;
  options.arch = "sm_80";
  options.kernel = "second";
  absl::StatusOr<std::string> source = EmitCudaSource(*module, options);
  ExpectLine(source, "// CUDA C++ for sm_80");
  ExpectLine(source, "second(float* Y)");
  EXPECT_FALSE(absl::StrContains(*source, "first"));
  options.kernel = "third";
  EXPECT_EQ(EmitCudaSource(*module, options).status().code(), absl::StatusCode::kNotFound);
  options.kernel = "";
  options.arch = "sm_75";
  EXPECT_EQ(EmitCudaSource(*module, options).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tile_ir::cuda
