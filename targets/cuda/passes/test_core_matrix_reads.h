// The test targets' matrix instruction read as core matrices, for the CUDA passes' tests:
// test_gpu.mm(A[...], B[...], C[...]) (passes/testing/fake_targets.h) reads its first two
// arguments as core matrices, with test_gpu.fence ordering ordinary stores before it, the
// way cuda.gemm_wgmma reads its operands (targets/cuda/intrinsics.h, CoreMatrixReads).
#ifndef TARGETS_CUDA_PASSES_TEST_CORE_MATRIX_READS_H_
#define TARGETS_CUDA_PASSES_TEST_CORE_MATRIX_READS_H_

namespace tile_ir::cuda::testing {

// Registers the fake intrinsics (passes::testing::RegisterFakeIntrinsics) and their core-matrix
// reads (idempotent).
void RegisterTestCoreMatrixReads();

}  // namespace tile_ir::cuda::testing

#endif  // TARGETS_CUDA_PASSES_TEST_CORE_MATRIX_READS_H_
