// The `pipeline-planning` pass: gives each pipelined loop without an explicit schedule the
// stage and issue order of its statements, which inject-software-pipeline then realizes.
#ifndef PASSES_TRANSFORMS_PIPELINE_PLANNING_H_
#define PASSES_TRANSFORMS_PIPELINE_PLANNING_H_

#include "passes/pass/pass.h"
#include "passes/pass/target_info.h"
#include "tile_ir/module.h"
#include "tile_ir/stmt.h"

namespace tile_ir::passes {

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
