// The default schedule of a software-pipelined loop: which statements a pipeline issues stages
// ahead (pipeline-planning records it, inject-software-pipeline falls back on it).
#ifndef PASSES_ANALYSIS_PIPELINE_SCHEDULE_H_
#define PASSES_ANALYSIS_PIPELINE_SCHEDULE_H_

#include <optional>

#include "tile_ir/stmt.h"

namespace tile_ir::passes {

// True for a copy from global into shared memory: what a pipeline issues stages ahead.
bool IsGlobalToSharedCopy(const Stmt& stmt);

// The default schedule of a pipelined loop with at least 2 stages: every copy from global
// into shared memory that no earlier statement of the body uses the destination of at
// stage 0 (issued num_stages - 1 iterations ahead of its use), every other statement at
// stage num_stages - 1, issued in statement order. nullopt when the loop
// has fewer than 2 stages or no such copy, so nothing is worth overlapping.
std::optional<PipelineInfo> PlanPipeline(const For& loop);

}  // namespace tile_ir::passes

#endif  // PASSES_ANALYSIS_PIPELINE_SCHEDULE_H_
