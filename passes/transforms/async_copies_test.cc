#include "passes/transforms/async_copies.h"

#include "gtest/gtest.h"
#include "passes/transforms/insert_barriers.h"
#include "passes/pass/target_info.h"
#include "passes/testing/fake_targets.h"
#include "passes/testing/ir_test_util.h"
#include "tile_ir/printer.h"

namespace tile_ir::passes {
namespace {

using testing::ParseOrDie;
using testing::PrintVerified;

std::string Canonical(std::string_view kernel_text) {
  testing::RegisterFakeIntrinsics();  // registers test_gpu.async_copy
  return testing::Canonical(kernel_text);
}

std::string Async(std::string_view kernel_text, const char* target = "test-gpu") {
  testing::RegisterFakeIntrinsics();
  Module module = ParseOrDie(kernel_text);
  MakeCopiesAsync(module, **testing::FindFakeTarget(target));
  return PrintVerified(module);
}

// A two-stage pipeline's shape: the copy before the commit is a producer stage; the one
// after the last commit is not waited for by anything and stays synchronous.
constexpr char kPipeline[] = R"(
kernel k(A: f16[64, 64]) grid(bx: 1) threads(32) {
  for tx in 0 +: 32 thread_bound(x) {
    alloc S: shared f16[2, 8, 64];
    for k in 0 +: 4 serial {
      let j_run: i32 = tx % 8 * 8;
      S[k % 2, tx / 8, ramp(j_run, 1, 8)] = A[k * 8 + tx / 8, ramp(j_run, 1, 8)];
      eval async_commit();
      eval async_wait(0);
      S[k % 2, tx / 8, ramp(j_run, 1, 8)] = A[k * 8 + tx / 8, ramp(j_run, 1, 8)];
    }
  }
})";

TEST(AsyncCopiesTest, AlignedProducerCopiesBecomeTheTargetsAsyncCopies) {
  EXPECT_EQ(Async(kPipeline), Canonical(R"(
kernel k(A: f16[64, 64]) grid(bx: 1) threads(32) {
  for tx in 0 +: 32 thread_bound(x) {
    alloc S: shared f16[2, 8, 64];
    for k in 0 +: 4 serial {
      let j_run: i32 = tx % 8 * 8;
      eval test_gpu.async_copy(S[k % 2, tx / 8, j_run], A[k * 8 + tx / 8, j_run], 16);
      eval async_commit();
      eval async_wait(0);
      S[k % 2, tx / 8, ramp(j_run, 1, 8)] = A[k * 8 + tx / 8, ramp(j_run, 1, 8)];
    }
  }
})"));
}

TEST(AsyncCopiesTest, TargetsWithoutAsyncCopiesKeepTheStores) {
  EXPECT_EQ(Async(kPipeline, "test-cpu"), Canonical(kPipeline));
}

TEST(AsyncCopiesTest, UnprovedAlignmentCastsAndDynamicStridesStaySynchronous) {
  constexpr char kKernel[] = R"(
kernel k<K: i32>(A: f16[64, 64], B: f32[64, 64], D: f16[64, K]) grid(bx: 1) threads(32) {
  for tx in 0 +: 32 thread_bound(x) {
    alloc S: shared f16[8, 64];
    let j4: i32 = tx % 8 * 4;
    let j8: i32 = tx % 8 * 8;
    S[tx / 8, ramp(j4, 1, 8)] = A[tx / 8, ramp(j4, 1, 8)];
    S[tx / 8, ramp(j8, 1, 8)] = cast<f16x8>(B[tx / 8, ramp(j8, 1, 8)]);
    S[tx / 8, ramp(j8, 1, 8)] = D[tx / 8 + 1, ramp(j8, 1, 8)];
    eval async_commit();
  }
})";
  EXPECT_EQ(Async(kKernel), Canonical(kKernel));
}

TEST(AsyncCopiesTest, BarriersOrderTheIssueAndTheLandingNotTheReadsBetween) {
  testing::RegisterFakeIntrinsics();
  // Reads of slot 0 while slot 1 is in flight need no barrier after the issue; the read
  // after the wait needs one (the other threads' copies landed), and so does the next
  // issue into a slot read before.
  Module module = ParseOrDie(R"(
kernel k(A: f16[64, 64], C: f16[64]) grid(bx: 1) threads(32) {
  for tx in 0 +: 32 thread_bound(x) {
    alloc S: shared f16[2, 8, 64];
    let j_run: i32 = tx % 8 * 8;
    S[0, tx / 8, ramp(j_run, 1, 8)] = A[tx / 8, ramp(j_run, 1, 8)];
    eval async_commit();
    eval async_wait(0);
    S[1, tx / 8, ramp(j_run, 1, 8)] = A[tx / 8 + 8, ramp(j_run, 1, 8)];
    eval async_commit();
    C[tx] = S[0, tx / 8, tx];
    eval async_wait(0);
    C[tx] = S[1, tx / 8, tx];
  }
})");
  MakeCopiesAsync(module, **testing::FindFakeTarget("test-gpu"));
  ASSERT_TRUE(InsertBarriers(module, **testing::FindFakeTarget("test-gpu")).ok());
  EXPECT_EQ(Print(module), Canonical(R"(
kernel k(A: f16[64, 64], C: f16[64]) grid(bx: 1) threads(32) {
  for tx in 0 +: 32 thread_bound(x) {
    alloc S: shared f16[2, 8, 64];
    let j_run: i32 = tx % 8 * 8;
    eval test_gpu.async_copy(S[0, tx / 8, j_run], A[tx / 8, j_run], 16);
    eval async_commit();
    eval async_wait(0);
    eval test_gpu.async_copy(S[1, tx / 8, j_run], A[tx / 8 + 8, j_run], 16);
    eval async_commit();
    barrier(block);
    C[tx] = S[0, tx / 8, tx];
    eval async_wait(0);
    barrier(block);
    C[tx] = S[1, tx / 8, tx];
  }
})"));
}

}  // namespace
}  // namespace tile_ir::passes
