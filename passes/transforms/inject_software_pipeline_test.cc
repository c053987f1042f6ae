#include "passes/transforms/inject_software_pipeline.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "passes/pass/target_info.h"
#include "passes/testing/fake_targets.h"
#include "passes/testing/ir_test_util.h"

namespace tile_ir::passes {
namespace {

using testing::Canonical;
using testing::ParseOrDie;
using testing::PrintVerified;

std::string Injected(std::string_view kernel_text, std::string_view target) {
  testing::RegisterFakeIntrinsics();
  Module module = ParseOrDie(kernel_text);
  absl::StatusOr<bool> changed = InjectSoftwarePipelines(module, **testing::FindFakeTarget(target));
  EXPECT_TRUE(changed.ok()) << changed.status();
  return PrintVerified(module);
}

constexpr char kCopyAndGemm[] = R"(
kernel k(A: f16[64, 256], B: f16[256, 64], C: f32[64, 64]) grid(bx: 1) threads(128) {
  alloc A_s: shared f16[64, 32];
  alloc B_f: fragment f16[32, 64];
  alloc C_l: fragment f32[64, 64];
  for k in 0 +: 8 pipelined(num_stages=3) {
    copy A[0 +: 64, k * 32 +: 32] -> A_s;
    gemm A_s, B_f -> C_l {transpose_a=false, transpose_b=false, policy=square, clear_accum=false};
  }
})";

TEST(InjectSoftwarePipelineTest, BuildsPrologueSteadyStateAndEpilogue) {
  EXPECT_EQ(Injected(kCopyAndGemm, "test-gpu"), Canonical(R"(
kernel k(A: f16[64, 256], B: f16[256, 64], C: f32[64, 64]) grid(bx: 1) threads(128) {
  alloc A_s: shared f16[3, 64, 32];
  alloc B_f: fragment f16[32, 64];
  alloc C_l: fragment f32[64, 64];
  copy A[0 +: 64, 0 +: 32] -> A_s[0 +: 1, 0 +: 64, 0 +: 32];
  eval async_commit();
  copy A[0 +: 64, 32 +: 32] -> A_s[1 +: 1, 0 +: 64, 0 +: 32];
  eval async_commit();
  for k in 0 +: 6 serial {
    eval async_wait(1);
    copy A[0 +: 64, k * 32 + 64 +: 32] -> A_s[(k + 2) % 3 +: 1, 0 +: 64, 0 +: 32];
    eval async_commit();
    gemm A_s[k % 3 +: 1, 0 +: 64, 0 +: 32], B_f -> C_l {transpose_a=false, transpose_b=false, policy=square, clear_accum=false};
  }
  eval async_wait(0);
  for k_epilogue in 6 +: 2 serial {
    gemm A_s[k_epilogue % 3 +: 1, 0 +: 64, 0 +: 32], B_f -> C_l {transpose_a=false, transpose_b=false, policy=square, clear_accum=false};
  }
})"));
}

TEST(InjectSoftwarePipelineTest, WithoutAsyncCopiesTheLoopBecomesSerial) {
  EXPECT_EQ(Injected(kCopyAndGemm, "test-cpu"), Canonical(R"(
kernel k(A: f16[64, 256], B: f16[256, 64], C: f32[64, 64]) grid(bx: 1) threads(128) {
  alloc A_s: shared f16[64, 32];
  alloc B_f: fragment f16[32, 64];
  alloc C_l: fragment f32[64, 64];
  for k in 0 +: 8 serial {
    copy A[0 +: 64, k * 32 +: 32] -> A_s;
    gemm A_s, B_f -> C_l {transpose_a=false, transpose_b=false, policy=square, clear_accum=false};
  }
})"));
}

TEST(InjectSoftwarePipelineTest, GuardsThePrologueAndRenamesTheEpilogue) {
  std::string out = Injected(R"(
kernel k<K: i32>(A: f32[64, K], O: f32[64]) grid(bx: 1) threads(64) {
  alloc A_s: shared f32[64, 16] strides[17, 1];
  alloc acc: local f32[1];
  for k in 1 +: K / 16 pipelined(num_stages=2) {
    copy A[0 +: 64, k * 16 +: 16] -> A_s;
    let base: i32 = k * 2;
    for i in 0 +: 16 serial {
      acc[0] = acc[0] + A_s[base % 64, i];
    }
  }
})",
                             "test-gpu");
  EXPECT_EQ(out, Canonical(R"(
kernel k<K: i32>(A: f32[64, K], O: f32[64]) grid(bx: 1) threads(64) {
  alloc A_s: shared f32[2, 64, 16] strides[1087, 17, 1];
  alloc acc: local f32[1];
  if (K / 16 > 0) {
    copy A[0 +: 64, 16 +: 16] -> A_s[0 +: 1, 0 +: 64, 0 +: 16];
  }
  eval async_commit();
  for k in 1 +: max(K / 16 - 1, 0) serial {
    eval async_wait(0);
    copy A[0 +: 64, k * 16 + 16 +: 16] -> A_s[k % 2 +: 1, 0 +: 64, 0 +: 16];
    eval async_commit();
    let base: i32 = k * 2;
    for i in 0 +: 16 serial {
      acc[0] = acc[0] + A_s[(k - 1) % 2, base % 64, i];
    }
  }
  eval async_wait(0);
  for k_epilogue in max(K / 16 - 1, 0) + 1 +: min(K / 16, 1) serial {
    let base_1: i32 = k_epilogue * 2;
    for i_1 in 0 +: 16 serial {
      acc[0] = acc[0] + A_s[(k_epilogue - 1) % 2, base_1 % 64, i_1];
    }
  }
})"));
}

TEST(InjectSoftwarePipelineTest, ALayoutGainsAStageInput) {
  std::string out = Injected(R"(
kernel k(A: f16[64, 256]) grid(bx: 1) threads(128) {
  alloc A_s: shared f16[64, 32] layout((i, j) -> (i, (j + i) % 32));
  alloc O_s: shared f16[64, 32];
  for k in 0 +: 4 pipelined(num_stages=2) {
    copy A[0 +: 64, k * 32 +: 32] -> A_s;
    copy A_s -> O_s;
  }
})",
                             "test-gpu");
  EXPECT_NE(out.find("alloc A_s: shared f16[2, 64, 32] layout((stage, i, j) -> (stage, i, (j + i) "
                     "% 32));"),
            std::string::npos)
      << out;
}

// Each of these schedules cannot be realized, so the loop runs serially as written.
TEST(InjectSoftwarePipelineTest, UnrealizableSchedulesBecomeSerialLoops) {
  const char* kernels[] = {
      // A stage between the first and the last.
      R"(
kernel k(A: f16[64, 256]) grid(bx: 1) threads(128) {
  alloc A_s: shared f16[64, 32];
  alloc O_s: shared f16[64, 32];
  for k in 0 +: 4 pipelined(num_stages=3, order=[0, 1], stage=[0, 1]) {
    copy A[0 +: 64, k * 32 +: 32] -> A_s;
    copy A_s -> O_s;
  }
})",
      // The loop writes the copy's source.
      R"(
kernel k(A: f16[64, 256]) grid(bx: 1) threads(128) {
  alloc A_s: shared f16[64, 32];
  for k in 0 +: 4 pipelined(num_stages=2) {
    copy A[0 +: 64, k * 32 +: 32] -> A_s;
    copy A_s -> A[0 +: 64, 0 +: 32];
  }
})",
      // The tile is used after the loop.
      R"(
kernel k(A: f16[64, 256], O: f16[64, 32]) grid(bx: 1) threads(128) {
  alloc A_s: shared f16[64, 32];
  for k in 0 +: 4 pipelined(num_stages=2) {
    copy A[0 +: 64, k * 32 +: 32] -> A_s;
  }
  copy A_s -> O;
})",
      // The copy fills part of its tile.
      R"(
kernel k(A: f16[64, 256], O: f16[64, 32]) grid(bx: 1) threads(128) {
  alloc A_s: shared f16[64, 32];
  for k in 0 +: 4 pipelined(num_stages=2) {
    copy A[0 +: 32, k * 32 +: 32] -> A_s[0 +: 32, 0 +: 32];
    copy A_s -> O;
  }
})",
      // A user schedule moves a copy ahead of a statement that reads the previous tile.
      R"(
kernel k(A: f16[64, 256], O: f16[64, 32]) grid(bx: 1) threads(128) {
  alloc A_s: shared f16[64, 32];
  for k in 0 +: 4 pipelined(num_stages=2, order=[0, 1], stage=[1, 0]) {
    copy A_s -> O;
    copy A[0 +: 64, k * 32 +: 32] -> A_s;
  }
})",
      // The copy's bounds use a variable declared in the loop.
      R"(
kernel k(A: f16[64, 256], O: f16[64, 32]) grid(bx: 1) threads(128) {
  alloc A_s: shared f16[64, 32];
  for k in 0 +: 4 pipelined(num_stages=2, order=[0, 1, 2], stage=[1, 0, 1]) {
    let col: i32 = k * 32;
    copy A[0 +: 64, col +: 32] -> A_s;
    copy A_s -> O;
  }
})",
  };
  for (const char* kernel : kernels) {
    std::string out = Injected(kernel, "test-gpu");
    EXPECT_NE(out.find("for k in 0 +: 4 serial {"), std::string::npos) << out;
    EXPECT_EQ(out.find("async"), std::string::npos) << out;
  }
}

TEST(InjectSoftwarePipelineTest, OneStageMeansNoPipelining) {
  std::string out = Injected(R"(
kernel k(A: f16[64, 256], O: f16[64, 32]) grid(bx: 1) threads(128) {
  alloc A_s: shared f16[64, 32];
  for k in 0 +: 4 pipelined(num_stages=1) {
    copy A[0 +: 64, k * 32 +: 32] -> A_s;
    copy A_s -> O;
  }
})",
                             "test-gpu");
  EXPECT_NE(out.find("for k in 0 +: 4 serial {"), std::string::npos) << out;
  EXPECT_EQ(out.find("async"), std::string::npos) << out;
}

TEST(InjectSoftwarePipelineTest, AShortConstantLoopHasAsManyPrologueGroupsAsTrips) {
  // Two trips, five stages: two groups of copies, not four (the steady loop has no trips).
  std::string out = Injected(R"(
kernel k(A: f16[64, 256], O: f16[64, 32]) grid(bx: 1) threads(128) {
  alloc A_s: shared f16[64, 32];
  alloc C_l: fragment f32[64, 64];
  for k in 0 +: 2 pipelined(num_stages=5) {
    copy A[0 +: 64, k * 32 +: 32] -> A_s;
    gemm A_s, A_s -> C_l {transpose_a=false, transpose_b=true, policy=square, clear_accum=false};
  }
})",
                             "test-gpu");
  size_t commits = 0;
  for (size_t at = out.find("async_commit"); at != std::string::npos;
       at = out.find("async_commit", at + 1)) {
    ++commits;
  }
  EXPECT_EQ(commits, 2u) << out;
  EXPECT_NE(out.find("alloc A_s: shared f16[5, 64, 32];"), std::string::npos) << out;
  EXPECT_NE(out.find("for k_epilogue in 0 +: 2 serial {"), std::string::npos) << out;
}

TEST(InjectSoftwarePipelineTest, StagesBeyondSharedMemoryAreRefusedNotBuilt) {
  // The fuzzer's find: 2^31 - 1 stages made the pass build a prologue of that many groups.
  // Over a symbolic trip count the prologue cannot be bounded by trips; the stages of a
  // 4 KiB tile cannot fit the fake GPU's 48 KiB, so the loop is refused with the numbers.
  testing::RegisterFakeIntrinsics();
  for (const char* stages : {"2147483647", "13"}) {
    Module module = ParseOrDie(absl::StrCat(R"(
kernel k<N: i32>(A: f16[64, N], O: f16[64, 32]) grid(bx: 1) threads(128) {
  alloc A_s: shared f16[64, 32];
  alloc C_l: fragment f32[64, 64];
  for k in 0 +: N / 32 pipelined(num_stages=)",
                                            stages, R"() {
    copy A[0 +: 64, k * 32 +: 32] -> A_s;
    gemm A_s, A_s -> C_l {transpose_a=false, transpose_b=true, policy=square, clear_accum=false};
  }
})"));
    absl::StatusOr<bool> changed =
        InjectSoftwarePipelines(module, **testing::FindFakeTarget("test-gpu"));
    ASSERT_FALSE(changed.ok()) << stages;
    EXPECT_EQ(changed.status().code(), absl::StatusCode::kResourceExhausted);
    EXPECT_NE(changed.status().message().find(absl::StrCat(
                  "a pipelined loop of num_stages=", stages,
                  " over tiles of 4096 bytes per stage needs more than the 49152 bytes")),
              std::string::npos)
        << changed.status();
  }
  // Twelve stages of 4 KiB fit.
  Module fits = ParseOrDie(R"(
kernel k<N: i32>(A: f16[64, N], O: f16[64, 32]) grid(bx: 1) threads(128) {
  alloc A_s: shared f16[64, 32];
  alloc C_l: fragment f32[64, 64];
  for k in 0 +: N / 32 pipelined(num_stages=12) {
    copy A[0 +: 64, k * 32 +: 32] -> A_s;
    gemm A_s, A_s -> C_l {transpose_a=false, transpose_b=true, policy=square, clear_accum=false};
  }
})");
  EXPECT_TRUE(InjectSoftwarePipelines(fits, **testing::FindFakeTarget("test-gpu")).ok());
}

TEST(InjectSoftwarePipelineTest, AStagedStrideIsCountedInI64WhenTheStridesAreNarrow) {
  // The fuzzer's find: a u8 stride made the slot's stride an i32 * u8 product (IR that does
  // not verify), and 1,087 does not fit u8 anyway.
  std::string out = Injected(R"(
kernel k<K: i32>(A: f32[64, K], O: f32[64]) grid(bx: 1) threads(64) {
  alloc A_s: shared f32[64, 16] strides[17_u8, 1];
  alloc acc: local f32[1];
  for k in 0 +: K / 16 pipelined(num_stages=2) {
    copy A[0 +: 64, k * 16 +: 16] -> A_s;
    acc[0] = acc[0] + A_s[0, 0];
  }
  O[0] = acc[0];
})",
                             "test-gpu");
  EXPECT_NE(out.find("alloc A_s: shared f32[2, 64, 16] strides[1087_i64, 17_u8, 1];"),
            std::string::npos)
      << out;
}

}  // namespace
}  // namespace tile_ir::passes
