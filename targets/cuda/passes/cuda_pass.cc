// The adapter of the CUDA passes.
#include "targets/cuda/passes/cuda_pass.h"

#include <utility>

namespace tile_ir::cuda {

passes::KernelPassFn CudaPass(std::function<absl::StatusOr<passes::KernelRewrite>(
                                  const CudaTargetInfo* cuda, const passes::PassOptions& options)>
                                  rewrite_for) {
  return [rewrite_for = std::move(rewrite_for)](const passes::PassOptions& options) {
    return rewrite_for(dynamic_cast<const CudaTargetInfo*>(options.target_or_null()), options);
  };
}

}  // namespace tile_ir::cuda
