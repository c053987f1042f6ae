// Lowering a tile-level module for one CUDA architecture: the pass manager
// over the CUDA pipeline, giving the thread-level IR cuda_codegen.h emits.
#ifndef TARGETS_CUDA_CUDA_LOWERING_H_
#define TARGETS_CUDA_CUDA_LOWERING_H_

#include <string>

#include "absl/status/statusor.h"
#include "targets/cuda/cuda_target_info.h"  // DefaultCudaPipeline, RegisterCudaTarget
#include "tile_ir/module.h"

namespace tile_ir::cuda {

// Registers the CUDA targets, then runs DefaultCudaPipeline("cuda:<arch>")
// (or `pipeline` when not empty) over a copy of `module`. Errors name the
// failing pass, the kernel and, for operations the target refuses, the
// missing capability.
absl::StatusOr<Module> LowerForCuda(const Module& module, const std::string& arch = "sm_90a",
                                    const std::string& pipeline = "");

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_CUDA_LOWERING_H_
