// Makes every code-generation target known to the passes (target=NAME), for
// the tools that run pipelines. Safe to call more than once.
#ifndef TOOLS_COMMON_TARGETS_H_
#define TOOLS_COMMON_TARGETS_H_

namespace tile_ir::cli {

void RegisterAllTargets();

}  // namespace tile_ir::cli

#endif  // TOOLS_COMMON_TARGETS_H_
