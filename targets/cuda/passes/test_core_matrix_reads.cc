// test_gpu.mm's core-matrix reads (test_core_matrix_reads.h).
#include "targets/cuda/passes/test_core_matrix_reads.h"

#include "passes/testing/fake_targets.h"
#include "targets/cuda/intrinsics.h"

namespace tile_ir::cuda::testing {

void RegisterTestCoreMatrixReads() {
  passes::testing::RegisterFakeIntrinsics();
  // Only a different registration of the same name can fail, and nothing makes one.
  RegisterCoreMatrixReads("test_gpu.mm", CoreMatrixReads{{0, 1}, "test_gpu.fence"}).IgnoreError();
}

}  // namespace tile_ir::cuda::testing
