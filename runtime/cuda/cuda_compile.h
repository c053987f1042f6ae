// From a tile-level kernel to a cubin through a CUDA Target (targets/target.h):
// its Lower, Emit and Compile, gathered into the image the driver loads.
#ifndef RUNTIME_CUDA_CUDA_COMPILE_H_
#define RUNTIME_CUDA_CUDA_COMPILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "runtime/cuda/cuda_kernel.h"
#include "targets/target.h"
#include "tile_ir/module.h"

namespace tile_ir::runtime::cuda {

// `module` holds the kernel `kernel_name` (and may hold others, which are
// lowered too). The image's artifacts are the CUDA source ("cu"), the PTX
// ("ptx") and the cubin ("cubin"). Errors name the target, the failing step
// and the kernel.
absl::StatusOr<CudaKernelImage> CompileCudaKernel(const Module& module,
                                                  const std::string& kernel_name,
                                                  const targets::Target& target);

}  // namespace tile_ir::runtime::cuda

#endif  // RUNTIME_CUDA_CUDA_COMPILE_H_
