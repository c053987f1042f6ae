// LowerForHip: the HIP pipeline of one architecture over the built-in passes.
#include "targets/hip/hip_lowering.h"

#include "passes/builtin_pipeline.h"

namespace tile_ir::hip {

absl::StatusOr<Module> LowerForHip(const Module& module, const std::string& arch,
                                   const std::string& pipeline) {
  absl::Status registered = RegisterHipTarget(arch);
  if (!registered.ok()) return registered;
  return passes::RunBuiltinPipeline(
      module, pipeline.empty() ? DefaultHipPipeline("hip:" + arch) : pipeline);
}

}  // namespace tile_ir::hip
