// LowerForMetal: the Metal pipeline over the built-in passes.
#include "targets/metal/metal_lowering.h"

#include "passes/builtin_pipeline.h"

namespace tile_ir::metal {

absl::StatusOr<Module> LowerForMetal(const Module& module, const std::string& pipeline) {
  RegisterMetalTarget();
  return passes::RunBuiltinPipeline(module, pipeline.empty() ? DefaultMetalPipeline() : pipeline);
}

}  // namespace tile_ir::metal
