// Lowering a tile-level module for one HIP architecture: the pass manager
// over the HIP pipeline, giving the thread-level IR hip_codegen.h emits.
#ifndef TARGETS_HIP_HIP_LOWERING_H_
#define TARGETS_HIP_HIP_LOWERING_H_

#include <string>

#include "absl/status/statusor.h"
#include "targets/hip/hip_target_info.h"  // DefaultHipPipeline, RegisterHipTarget
#include "tile_ir/module.h"

namespace tile_ir::hip {

// Registers the HIP targets, then runs DefaultHipPipeline("hip:<arch>") (or
// `pipeline` when not empty) over a copy of `module`. Errors name the failing
// pass, the kernel and, for operations the target refuses, the missing
// capability.
absl::StatusOr<Module> LowerForHip(const Module& module, const std::string& arch = "gfx90a",
                                   const std::string& pipeline = "");

}  // namespace tile_ir::hip

#endif  // TARGETS_HIP_HIP_LOWERING_H_
