// The default schedule of a pipelined loop: copies from global to shared memory go
// num_stages - 1 iterations ahead of the statements that consume them.
#include "passes/analysis/pipeline_schedule.h"

#include <vector>

#include "passes/analysis/buffer_access.h"
#include "passes/utils/loop_body.h"

namespace tile_ir::passes {

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

}  // namespace tile_ir::passes
