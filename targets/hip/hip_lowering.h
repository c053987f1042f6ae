// Lowering a tile-level module for one HIP architecture without a registry:
// the HipTarget's Lower (hip_target.h), for code and tests inside targets/hip.
#ifndef TARGETS_HIP_HIP_LOWERING_H_
#define TARGETS_HIP_HIP_LOWERING_H_

#include <string>

#include "absl/status/statusor.h"
#include "targets/hip/hip_target_info.h"  // DefaultHipPipeline
#include "tile_ir/module.h"

namespace tile_ir::hip {

// Runs DefaultHipPipeline() for hip:<arch> over a copy of `module`. Errors
// name the failing pass, the kernel and, for operations the target refuses,
// the missing capability.
absl::StatusOr<Module> LowerForHip(const Module& module, const std::string& arch = "gfx90a");

}  // namespace tile_ir::hip

#endif  // TARGETS_HIP_HIP_LOWERING_H_
