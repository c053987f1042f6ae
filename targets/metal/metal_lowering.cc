// LowerForMetal: the pass manager over the Metal pipeline.
#include "targets/metal/metal_lowering.h"

#include "passes/all_passes.h"
#include "passes/pass_manager.h"

namespace tile_ir::metal {

absl::StatusOr<Module> LowerForMetal(const Module& module, const std::string& pipeline) {
  RegisterMetalTarget();
  const std::string text = pipeline.empty() ? DefaultMetalPipeline() : pipeline;
  absl::StatusOr<passes::PassManager> manager =
      passes::PassManager::Create(passes::BuiltinPassRegistry(), text, {});
  if (!manager.ok()) return manager.status();
  Module lowered = module;
  absl::Status status = manager->Run(lowered);
  if (!status.ok()) return status;
  return lowered;
}

}  // namespace tile_ir::metal
