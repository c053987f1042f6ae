// The test targets as tile-opt resolves them.
#include "passes/testing/fake_pipeline_targets.h"

#include <string>

#include "passes/testing/fake_targets.h"
#include "passes/transforms/all_passes.h"

namespace tile_ir::passes::testing {

tools::TileOptTargets FakePipelineTargets(std::vector<PassInfo> extra) {
  RegisterFakeIntrinsics();
  PassRegistry registry = BuiltinPassRegistry();
  for (PassInfo& pass : extra) registry.Register(std::move(pass)).IgnoreError();
  auto resolve = [registry](std::string_view name) -> absl::StatusOr<tools::PipelineTarget> {
    absl::StatusOr<std::shared_ptr<const TargetInfo>> info = FindFakeTarget(name);
    if (!info.ok()) return info.status();
    return tools::PipelineTarget{std::string(name), *info, registry,
                                 "simplify,layout-inference,lower-tile-ops,bound-predication,simplify"};
  };
  return {resolve, "  test-cpu\n      one thread per block\n  test-gpu\n      warps of 32\n"};
}

}  // namespace tile_ir::passes::testing
