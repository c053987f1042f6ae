// The CUDA target family: "cuda[:sm_80|sm_90a][{gemm=auto|wgmma|mma}]".
// Lowers with DefaultCudaPipeline, emits CUDA C++ over the embedded device
// library, compiles with NVRTC (dlopen'ed, so nothing here links CUDA).
#ifndef TARGETS_CUDA_CUDA_TARGET_H_
#define TARGETS_CUDA_CUDA_TARGET_H_

#include <memory>
#include <string>

#include "targets/cuda/cuda_target_info.h"
#include "targets/target.h"

namespace tile_ir::cuda {

std::unique_ptr<targets::TargetFamily> MakeCudaFamily();

// The target for `arch` (one of KnownCudaArchs()) with its gemms chosen by
// `wgmma`, without a registry: for code inside targets/cuda and its tests.
std::unique_ptr<targets::Target> MakeCudaTarget(const std::string& arch,
                                                WgmmaUse wgmma = WgmmaUse::kSwizzledOperands);

// The environment variable that used to pick the sm_90a gemm variant. A target
// is now named in full, so a process that still sets it is refused (on every
// resolution of a cuda target) with the target string that replaces it.
inline constexpr char kStaleWgmmaEnvironmentVariable[] = "TILE_CUDA_WGMMA";

}  // namespace tile_ir::cuda

#endif  // TARGETS_CUDA_CUDA_TARGET_H_
