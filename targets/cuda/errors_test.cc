// What the CUDA code generator refuses, and that each error names the kernel,
// the node's location and what to do.
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "targets/cuda/cuda_codegen.h"
#include "tile_ir/intrinsics.h"

namespace tile_ir::cuda {
namespace {

absl::Status EmitError(const std::string& kernel) {
  absl::StatusOr<Module> module = text::ParseModule(
      absl::StrCat("ir_version 1;\nproducer \"test\" \"1\";\n\n", kernel), "bad.tile");
  if (!module.ok()) return module.status();
  absl::StatusOr<std::string> source = EmitCudaSource(*module);
  return source.ok() ? absl::OkStatus() : source.status();
}

void ExpectError(const std::string& kernel, absl::StatusCode code, const std::string& text) {
  absl::Status status = EmitError(kernel);
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), text)) << status;
}

TEST(CudaErrorsTest, TileLevelConstructs) {
  ExpectError(R"(kernel k(X: f32[4], Y: f32[4]) grid(bx: 1) threads(1) {
  copy X -> Y;
})",
              absl::StatusCode::kUnimplemented,
              "bad.tile:5:3: error: in kernel 'k': cuda target: tile operation 'copy' is not "
              "thread-level; lower the module with the CUDA pipeline (LowerForCuda) first");
  ExpectError(R"(kernel k(Y: f32[4]) grid(bx: 1) threads(1) {
  for i in 0 +: 4 parallel {
    Y[i] = 0.0;
  }
})",
              absl::StatusCode::kUnimplemented, "the parallel loop over 'i' is not thread-level");
  ExpectError(R"(kernel k(Y: f32[4]) grid(bx: 1) threads(1) {
  alloc F: fragment f32[4];
})",
              absl::StatusCode::kUnimplemented, "fragment buffer 'F' is not thread-level");
}

TEST(CudaErrorsTest, SharedBuffersNeedAnOffset) {
  ExpectError(R"(kernel k(Y: f32[4]) grid(bx: 1) threads(1) {
  alloc S: shared f32[4];
  S[0] = 1.0;
})",
              absl::StatusCode::kUnimplemented,
              "shared buffer 'S' has no offset(N) in the shared-memory pool; run "
              "plan-shared-memory");
}

TEST(CudaErrorsTest, ThreadLoopsMustBeTheKernelsTop) {
  ExpectError(R"(kernel k(Y: f32[64]) grid(bx: 1) threads(1) {
  for i in 0 +: 2 serial {
    for tx in 0 +: 1 thread_bound(x) {
      Y[i] = 0.0;
    }
  }
})",
              absl::StatusCode::kUnimplemented, "is inside a serial loop or an if");
  ExpectError(R"(kernel k(Y: f32[64]) grid(bx: 1) threads(64) {
  for tx in 0 +: 32 thread_bound(x) {
    Y[tx] = 0.0;
  }
})",
              absl::StatusCode::kUnimplemented,
              "the thread_bound(x) loop over 'tx' must run over 0 +: 64");
  ExpectError(R"(kernel k(Y: f32[64]) grid(bx: 1) threads(64) {
  for tx in 0 +: 64 thread_bound(x) {
    Y[tx] = 0.0;
  }
  for tx2 in 0 +: 64 thread_bound(x) {
    Y[tx2] = 1.0;
  }
})",
              absl::StatusCode::kUnimplemented, "one thread loop per axis");
  ExpectError(R"(kernel k(Y: f32[64]) grid(bx: 1) threads(64) {
  for tz in 0 +: 1 thread_bound(z) {
    Y[0] = 0.0;
  }
})",
              absl::StatusCode::kUnimplemented, "binds an axis the launch (1 thread axes)");
}

TEST(CudaErrorsTest, EffectsOutsideThreadLoopsRunOnEveryThread) {
  ExpectError(R"(kernel k(Y: f32[64]) grid(bx: 1) threads(64) {
  Y[0] = 1.0;
})",
              absl::StatusCode::kUnimplemented,
              "a store outside the kernel's thread_bound loops would run on every one of the "
              "block's 64 threads");
  ExpectError(R"(kernel k(Y: f32[64]) grid(bx: 1) threads(32, 2) {
  for tx in 0 +: 32 thread_bound(x) {
    barrier(block);
  }
})",
              absl::StatusCode::kUnimplemented, "a barrier outside the kernel's thread_bound");
}

// Any kernel name emits: one C++ or CUDA takes (a keyword, `main`, a CUDA built-in, a name with
// "__") gets a legal symbol derived from it, unique among the module's kernels and symbols.
TEST(CudaErrorsTest, AnyKernelNameGetsALegalUniqueSymbol) {
  absl::StatusOr<Module> module = text::ParseModule(R"(ir_version 1;
producer "test" "1";

kernel main(Y: f32[1]) grid(bx: 1) threads(1) {
  Y[0] = 1.0;
}

kernel int(Y: f32[1]) grid(bx: 1) threads(1) {
  Y[0] = 2.0;
}

kernel tl_main_kernel(Y: f32[1]) grid(bx: 1) threads(1) {
  Y[0] = 3.0;
}

kernel threadIdx(Y: f32[1]) grid(bx: 1) threads(1) {
  Y[0] = 4.0;
}
)",
                                                    "names.tile");
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::string> source = EmitCudaSource(*module);
  ASSERT_TRUE(source.ok()) << source.status();
  for (const char* symbol : {" tl_main_kernel2(float* Y)", " tl_int_kernel(float* Y)",
                             " tl_main_kernel(float* Y)", " tl_threadIdx_kernel(float* Y)"}) {
    EXPECT_TRUE(absl::StrContains(*source, symbol)) << symbol << " in\n" << *source;
  }
  EXPECT_EQ(CudaKernelSymbol(*module, "main"), "tl_main_kernel2");
  EXPECT_EQ(CudaKernelSymbol(*module, "tl_main_kernel"), "tl_main_kernel");
  EXPECT_EQ(CudaKernelSymbol(*module, "int"), "tl_int_kernel");
}

TEST(CudaErrorsTest, LaunchesCudaCannotRun) {
  ExpectError(R"(kernel k(Y: f32[1]) grid(bx: 1) threads(2048) {
  for tx in 0 +: 2048 thread_bound(x) {
    Y[0] = 1.0;
  }
})",
              absl::StatusCode::kInvalidArgument, "a block of 2048 threads");
}

TEST(CudaErrorsTest, CallsWithoutACudaForm) {
  ASSERT_TRUE(RegisterIntrinsic({.name = "cuda.unlisted",
                                 .num_args = 1,
                                 .result = IntrinsicInfo::ResultType::kVoid,
                                 .pure = false}));
  ExpectError(R"(kernel k(Y: f32[1]) grid(bx: 1) threads(1) {
  eval cuda.unlisted(Y[0]);
})",
              absl::StatusCode::kUnimplemented,
              "CUDA intrinsic 'cuda.unlisted' is not registered (RegisterLibraryIntrinsic)");
  ExpectError(R"(kernel k(Y: i4[4]) grid(bx: 1) threads(1) {
  eval atomic_add_at(Y[0], 1_i4);
})",
              absl::StatusCode::kUnimplemented, "atomic_add_at on i4 has no CUDA form");
}

}  // namespace
}  // namespace tile_ir::cuda
