// LowerForHip: the pass manager over the HIP pipeline of one architecture.
#include "targets/hip/hip_lowering.h"

#include "passes/all_passes.h"
#include "passes/pass_manager.h"

namespace tile_ir::hip {

absl::StatusOr<Module> LowerForHip(const Module& module, const std::string& arch,
                                   const std::string& pipeline) {
  absl::Status registered = RegisterHipTarget(arch);
  if (!registered.ok()) return registered;
  const std::string text = pipeline.empty() ? DefaultHipPipeline("hip:" + arch) : pipeline;
  absl::StatusOr<passes::PassManager> manager =
      passes::PassManager::Create(passes::BuiltinPassRegistry(), text, {});
  if (!manager.ok()) return manager.status();
  Module lowered = module;
  absl::Status status = manager->Run(lowered);
  if (!status.ok()) return status;
  return lowered;
}

}  // namespace tile_ir::hip
