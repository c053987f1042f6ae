// The passes only the CUDA target runs, which its Target contributes to the
// registry its pipelines resolve against (targets/target.h, Passes()).
#ifndef TARGETS_CUDA_PASSES_CUDA_PASSES_H_
#define TARGETS_CUDA_PASSES_CUDA_PASSES_H_

#include <vector>

#include "passes/pass/pass.h"

namespace tile_ir::cuda {

std::vector<passes::PassInfo> CudaPasses();

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_PASSES_CUDA_PASSES_H_
