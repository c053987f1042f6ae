// Lowering a tile-level module for one CUDA architecture without a registry:
// the CudaTarget's Lower (cuda_target.h), for code and tests inside targets/cuda.
#ifndef TARGETS_CUDA_CUDA_LOWERING_H_
#define TARGETS_CUDA_CUDA_LOWERING_H_

#include <string>

#include "absl/status/statusor.h"
#include "targets/cuda/cuda_target_info.h"  // WgmmaUse, DefaultCudaPipeline
#include "tile_ir/module.h"

namespace tile_ir::cuda {

// Runs DefaultCudaPipeline() for cuda:<arch> (with `wgmma`) over a copy of
// `module`. Errors name the failing pass, the kernel and, for operations the
// target refuses, the missing capability.
absl::StatusOr<Module> LowerForCuda(const Module& module, const std::string& arch = "sm_90a",
                                    WgmmaUse wgmma = WgmmaUse::kSwizzledOperands);

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_CUDA_LOWERING_H_
