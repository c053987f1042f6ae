// LowerForCuda: the CUDA pipeline of one architecture over the built-in passes.
#include "targets/cuda/cuda_lowering.h"

#include "passes/builtin_pipeline.h"

namespace tile_ir::cuda {

absl::StatusOr<Module> LowerForCuda(const Module& module, const std::string& arch,
                                    const std::string& pipeline) {
  absl::Status registered = RegisterCudaTarget(arch);
  if (!registered.ok()) return registered;
  return passes::RunBuiltinPipeline(
      module, pipeline.empty() ? DefaultCudaPipeline("cuda:" + arch) : pipeline);
}

}  // namespace tile_ir::cuda
