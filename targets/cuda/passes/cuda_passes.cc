// pad-shared-rows and core-matrix-tiles.
#include "targets/cuda/passes/cuda_passes.h"

#include "targets/cuda/passes/core_matrix_tiles.h"
#include "targets/cuda/passes/overlap_gemm_chains.h"
#include "targets/cuda/passes/pad_shared_rows.h"
#include "targets/cuda/passes/warp_roles.h"
#include "targets/cuda/passes/warp_specialize.h"

namespace tile_ir::cuda {

std::vector<passes::PassInfo> CudaPasses() {
  return {passes::CoreMatrixTilesPass(), passes::PadSharedRowsPass(), WarpSpecializePass(),
          WarpRolesPass(), OverlapGemmChainsPass()};
}

}  // namespace tile_ir::cuda
