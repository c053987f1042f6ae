// Pipeline planning: copies from global to shared memory go num_stages - 1 iterations ahead
// of the statements that consume them.
#include "passes/transforms/pipeline_planning.h"

#include <utility>
#include <vector>

#include "passes/analysis/buffer_access.h"
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

std::vector<Stmt> LoopBodyStmts(const For& loop) {
  if (const Seq* seq = As<Seq>(loop.body)) return seq->stmts;
  return {loop.body};
}

bool IsGlobalToSharedCopy(const Stmt& stmt) {
  const Copy* copy = As<Copy>(stmt);
  return copy != nullptr && copy->src.buffer->scope == MemoryScope::kGlobal &&
         copy->dst.buffer->scope == MemoryScope::kShared;
}

std::optional<PipelineInfo> PlanPipeline(const For& loop) {
  int num_stages = loop.pipeline.num_stages;
  if (num_stages < 2) return std::nullopt;
  PipelineInfo plan;
  plan.num_stages = num_stages;
  bool any_copy = false;
  std::vector<Stmt> stmts = LoopBodyStmts(loop);
  // A statement that uses a copy's destination before the copy reads the previous
  // iteration's tile, so that copy cannot move ahead.
  BufferAccesses earlier;
  for (size_t i = 0; i < stmts.size(); ++i) {
    bool ahead = IsGlobalToSharedCopy(stmts[i]) &&
                 !earlier.reads.contains(As<Copy>(stmts[i])->dst.buffer.get()) &&
                 !earlier.writes.contains(As<Copy>(stmts[i])->dst.buffer.get());
    CollectAccesses(stmts[i], &earlier);
    any_copy |= ahead;
    plan.order.push_back(static_cast<int>(i));
    plan.stage.push_back(ahead ? 0 : num_stages - 1);
  }
  if (!any_copy) return std::nullopt;
  return plan;
}

Kernel PlanPipelines(const Kernel& kernel, const TargetInfo& target) {
  if (!target.has_async_copy()) return kernel;
  return Planner().MutateKernel(kernel);
}

bool PlanPipelines(Module& module, const TargetInfo& target) {
  bool changed = false;
  for (Kernel& kernel : module.kernels) {
    Kernel planned = PlanPipelines(kernel, target);
    changed |= planned != kernel;
    kernel = std::move(planned);
  }
  return changed;
}

PassInfo PipelinePlanningPass() {
  PassInfo info;
  info.name = "pipeline-planning";
  info.description =
      "schedules pipelined loops: copies into shared memory num_stages - 1 iterations ahead";
  info.needs_target = true;
  info.run = [](Module& module, const PassOptions& options) -> absl::StatusOr<bool> {
    return PlanPipelines(module, options.target());
  };
  return info;
}

}  // namespace tile_ir::passes
