// Pipeline planning: copies from global to shared memory go num_stages - 1 iterations ahead
// of the statements that consume them.
#include "passes/transforms/pipeline_planning.h"

#include <utility>

#include "passes/analysis/pipeline_schedule.h"
#include "tile_ir/mutator.h"

namespace tile_ir::passes {
namespace {

class Planner : public IRMutator {
 protected:
  Stmt MutateFor(const For& node, const Stmt& self) override {
    Stmt mutated = IRMutator::MutateFor(node, self);
    const For& loop = *As<For>(mutated);
    if (loop.for_kind != ForKind::kPipelined || !loop.pipeline.order.empty() ||
        !loop.pipeline.stage.empty()) {
      return mutated;
    }
    std::optional<PipelineInfo> plan = PlanPipeline(loop);
    if (!plan) return mutated;
    return For::Make(loop.var, loop.min, loop.extent, loop.for_kind, loop.body, loop.loc(),
                     *std::move(plan));
  }
};

}  // namespace

Kernel PlanPipelines(const Kernel& kernel, const TargetInfo& target) {
  if (!target.has_async_copy()) return kernel;
  return Planner().MutateKernel(kernel);
}

bool PlanPipelines(Module& module, const TargetInfo& target) {
  return *MapKernels(module,
                     [&target](const Kernel& kernel) { return PlanPipelines(kernel, target); });
}

PassInfo PipelinePlanningPass() {
  PassInfo info;
  info.name = "pipeline-planning";
  info.description =
      "schedules pipelined loops: copies into shared memory num_stages - 1 iterations ahead";
  info.needs_target = true;
  info.run_kernel = EachKernel([](const Kernel& kernel, const PassOptions& options) {
    return PlanPipelines(kernel, options.target());
  });
  return info;
}

}  // namespace tile_ir::passes
