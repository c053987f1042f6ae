// A Target as tile-opt needs it: its TargetInfo, passes and default pipeline.
#include "tools/tile_opt/linked_pipeline_targets.h"

#include "targets/target_registry.h"

namespace tile_ir::tools {
namespace {

absl::StatusOr<PipelineTarget> Resolve(std::string_view name) {
  absl::StatusOr<std::shared_ptr<const targets::Target>> target =
      targets::LinkedTargets().Resolve(name);
  if (!target.ok()) return target.status();
  return PipelineTarget{(*target)->ToString(), (*target)->info(), (*target)->PassRegistry(),
                        (*target)->DefaultPipeline()};
}

std::vector<std::string> TargetsWithPass(std::string_view pass) {
  std::vector<std::string> names;
  for (const std::string& family : targets::LinkedTargets().FamilyNames()) {
    absl::StatusOr<std::shared_ptr<const targets::Target>> target =
        targets::LinkedTargets().Resolve(family);
    if (target.ok() && (*target)->PassRegistry().Find(pass) != nullptr) names.push_back(family);
  }
  return names;
}

}  // namespace

TileOptTargets LinkedPipelineTargets() {
  return {Resolve, targets::LinkedTargets().Describe(), TargetsWithPass};
}

}  // namespace tile_ir::tools
