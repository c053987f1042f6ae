// What every target shares: its pass registry, its lowering and its cache fields.
#include "targets/target.h"

#include "passes/transforms/all_passes.h"
#include "passes/pass/pass_manager.h"

namespace tile_ir::targets {

passes::PassRegistry Target::PassRegistry() const {
  passes::PassRegistry registry = passes::BuiltinPassRegistry();
  for (passes::PassInfo& pass : Passes()) {
    // A clash is a bug in the target, caught by its tests (target_registry_test).
    registry.Register(std::move(pass)).IgnoreError();
  }
  return registry;
}

absl::StatusOr<Module> Target::Lower(const Module& module, std::string_view pipeline,
                                     std::vector<std::string>* remarks) const {
  passes::PassManagerOptions options;
  options.target = info();
  options.remarks = remarks;
  const std::string text = pipeline.empty() ? DefaultPipeline() : std::string(pipeline);
  absl::StatusOr<passes::PassManager> manager =
      passes::PassManager::Create(PassRegistry(), text, std::move(options));
  if (!manager.ok()) return manager.status();
  Module lowered = module;
  if (absl::Status status = manager->Run(lowered); !status.ok()) return status;
  return lowered;
}

std::vector<std::pair<std::string, std::string>> Target::CacheFields() const {
  return {{"target", ToString()}, {"pipeline", DefaultPipeline()}};
}

}  // namespace tile_ir::targets
