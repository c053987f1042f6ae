// Test-only targets for the generic lowering passes, so that their tests do
// not depend on a real target: "test-cpu" runs a block on one thread,
// "test-gpu" on the launch's threads in warps of 32.
#ifndef PASSES_TESTING_FAKE_TARGETS_H_
#define PASSES_TESTING_FAKE_TARGETS_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "passes/pass/target_info.h"

namespace tile_ir::passes::testing {

// "test-cpu" or "test-gpu" (and their intrinsics registered), or NotFound.
//
// test-cpu: one thread per block, warp size 1, no async copy; refuses gemm on
// f8e4m3 and f8e5m2 ("needs fp8 arithmetic"). No gemm hooks.
//
// test-gpu: the launch's thread count, warp size 32, async copy, shared tiles that an
// intrinsic reads as core matrices placed on 1024 bytes (as CUDA's); refuses
// atomic_add on bf16 ("needs bf16 atomics"). Its FragmentLayoutForGemm gives
// an accumulator region of R rows and C columns, when R * C is a multiple of
// the thread count T, the blocked layout (i, j) -> ((i * C + j) / (R * C / T),
// (i * C + j) % (R * C / T)); otherwise it leaves the choice to the pass. It
// has no LowerGemm hook.
absl::StatusOr<std::shared_ptr<const TargetInfo>> FindFakeTarget(std::string_view name);

// Registers the test targets' intrinsics; safe to call more than once:
// `eval test_gpu.async_copy(dst, src, bytes)`, test-gpu's asynchronous copy;
// `eval test_gpu.mm(A[first], B[first], C[first])`, a matrix instruction that reads A
// and B as matrix tiles (test-gpu aligns them; targets/cuda/passes/test_core_matrix_reads.h
// registers them as core-matrix reads for core-matrix-tiles), after `eval test_gpu.fence()`.
void RegisterFakeIntrinsics();

}  // namespace tile_ir::passes::testing

#endif  // PASSES_TESTING_FAKE_TARGETS_H_
