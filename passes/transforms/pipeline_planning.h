// The `pipeline-planning` pass: gives each pipelined loop without an explicit schedule the
// stage and issue order of its statements, which inject-software-pipeline then realizes.
#ifndef PASSES_TRANSFORMS_PIPELINE_PLANNING_H_
#define PASSES_TRANSFORMS_PIPELINE_PLANNING_H_

#include <optional>
#include <vector>

#include "passes/pass/pass.h"
#include "passes/pass/target_info.h"
#include "tile_ir/module.h"
#include "tile_ir/stmt.h"

namespace tile_ir::passes {

// The statements of a loop body: a Seq's statements, or the body itself.
std::vector<Stmt> LoopBodyStmts(const For& loop);

// True for a copy from global into shared memory: what a pipeline issues stages ahead.
bool IsGlobalToSharedCopy(const Stmt& stmt);

// The default schedule of a pipelined loop with at least 2 stages: every copy from global
// into shared memory that no earlier statement of the body uses the destination of at
// stage 0 (issued num_stages - 1 iterations ahead of its use), every other statement at
// stage num_stages - 1, issued in statement order. nullopt when the loop
// has fewer than 2 stages or no such copy, so nothing is worth overlapping.
std::optional<PipelineInfo> PlanPipeline(const For& loop);

// Records the default schedule in every pipelined loop whose order and stage are empty
// (explicit schedules are the user's and stay) when `target` has asynchronous copies;
// without them the loop will run serially and there is nothing to plan.
// The same pointer when nothing changed.
Kernel PlanPipelines(const Kernel& kernel, const TargetInfo& target);
bool PlanPipelines(Module& module, const TargetInfo& target);

// The pass: `pipeline-planning` (it lowers for the run's target).
PassInfo PipelinePlanningPass();

}  // namespace tile_ir::passes

#endif  // PASSES_TRANSFORMS_PIPELINE_PLANNING_H_
