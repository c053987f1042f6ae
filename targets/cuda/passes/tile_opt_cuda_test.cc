// tile-opt over the test targets (passes/testing/fake_targets.h) with the CUDA
// target's own passes added, for their golden tests: the passes run on small
// hand-written IR without the rest of the CUDA lowering.
#include <iostream>

#include "passes/testing/fake_pipeline_targets.h"
#include "targets/cuda/passes/cuda_passes.h"
#include "targets/cuda/passes/test_core_matrix_reads.h"
#include "tools/tile_opt/tile_opt_main.h"

int main(int argc, char** argv) {
  tile_ir::cuda::testing::RegisterTestCoreMatrixReads();
  return tile_ir::tools::TileOptMain(argc, argv, std::cin, std::cout, std::cerr,
                                     tile_ir::passes::testing::FakePipelineTargets(
                                         tile_ir::cuda::CudaPasses()));
}
