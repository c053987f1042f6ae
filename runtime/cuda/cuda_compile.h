// From a tile-level kernel to a cubin for one GPU architecture, through
// targets/cuda: lower with the CUDA pipeline, emit CUDA C++, compile it with
// NVRTC. The only file of the runtime that knows the target's API.
#ifndef RUNTIME_CUDA_CUDA_COMPILE_H_
#define RUNTIME_CUDA_CUDA_COMPILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "runtime/cuda/cuda_kernel.h"
#include "tile_ir/module.h"

namespace tile_ir::runtime::cuda {

// `module` holds the kernel `kernel_name` (and may hold others, which are
// lowered too). The image's artifacts are the CUDA source ("cu"), the PTX
// ("ptx") and the cubin ("cubin"). Errors name the architecture, the failing
// step and the kernel.
absl::StatusOr<CudaKernelImage> CompileCudaKernel(const Module& module,
                                                  const std::string& kernel_name,
                                                  const std::string& arch);

}  // namespace tile_ir::runtime::cuda

#endif  // RUNTIME_CUDA_CUDA_COMPILE_H_
