// pad-shared-rows.
#include "targets/cuda/passes/cuda_passes.h"

#include "targets/cuda/passes/pad_shared_rows.h"

namespace tile_ir::cuda {

std::vector<passes::PassInfo> CudaPasses() { return {passes::PadSharedRowsPass()}; }

}  // namespace tile_ir::cuda
