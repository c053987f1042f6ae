// Lowering a module through a pipeline of the built-in passes, with the pass
// manager's default checks: the driver every target's LowerFor* entry point
// runs after registering its TargetInfo.
#ifndef PASSES_TRANSFORMS_BUILTIN_PIPELINE_H_
#define PASSES_TRANSFORMS_BUILTIN_PIPELINE_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "tile_ir/module.h"

namespace tile_ir::passes {

// Runs `pipeline` (pipeline syntax over BuiltinPassRegistry) over a copy of
// `module`, verifying after each pass. Errors name the failing pass, the
// kernel and, for operations a target refuses, the missing capability.
absl::StatusOr<Module> RunBuiltinPipeline(const Module& module, std::string_view pipeline);

}  // namespace tile_ir::passes

#endif  // PASSES_TRANSFORMS_BUILTIN_PIPELINE_H_
