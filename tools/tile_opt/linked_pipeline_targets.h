// tile-opt's view of the targets the binary links (targets/target_registry.h).
#ifndef TOOLS_TILE_OPT_LINKED_PIPELINE_TARGETS_H_
#define TOOLS_TILE_OPT_LINKED_PIPELINE_TARGETS_H_

#include "tools/tile_opt/tile_opt_main.h"

namespace tile_ir::tools {

// Resolves --target against targets::LinkedTargets() (which also makes every
// family's intrinsics known, so lowered IR that names them parses).
TileOptTargets LinkedPipelineTargets();

}  // namespace tile_ir::tools

#endif  // TOOLS_TILE_OPT_LINKED_PIPELINE_TARGETS_H_
