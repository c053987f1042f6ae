// tile-opt's view of the test targets (fake_targets.h), for the test builds of
// tile-opt that golden tests run: --target=test-cpu or --target=test-gpu.
#ifndef PASSES_TESTING_FAKE_PIPELINE_TARGETS_H_
#define PASSES_TESTING_FAKE_PIPELINE_TARGETS_H_

#include <vector>

#include "passes/pass/pass.h"
#include "tools/tile_opt/tile_opt_main.h"

namespace tile_ir::passes::testing {

// The test targets over the built-in passes plus `extra` (a target's own
// passes, for their golden tests). Also registers the test intrinsics.
tools::TileOptTargets FakePipelineTargets(std::vector<PassInfo> extra = {});

}  // namespace tile_ir::passes::testing

#endif  // PASSES_TESTING_FAKE_PIPELINE_TARGETS_H_
