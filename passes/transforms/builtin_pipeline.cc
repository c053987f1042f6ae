// RunBuiltinPipeline: the pass manager over the built-in registry.
#include "passes/transforms/builtin_pipeline.h"

#include "passes/transforms/all_passes.h"
#include "passes/pass/pass_manager.h"

namespace tile_ir::passes {

absl::StatusOr<Module> RunBuiltinPipeline(const Module& module, std::string_view pipeline) {
  absl::StatusOr<PassManager> manager = PassManager::Create(BuiltinPassRegistry(), pipeline, {});
  if (!manager.ok()) return manager.status();
  Module lowered = module;
  absl::Status status = manager->Run(lowered);
  if (!status.ok()) return status;
  return lowered;
}

}  // namespace tile_ir::passes
