// Lowering a tile-level module for Metal without a registry: the MetalTarget's
// Lower (metal_target.h), for code and tests inside targets/metal.
#ifndef TARGETS_METAL_METAL_LOWERING_H_
#define TARGETS_METAL_METAL_LOWERING_H_

#include "absl/status/statusor.h"
#include "targets/metal/metal_target_info.h"  // DefaultMetalPipeline
#include "tile_ir/module.h"

namespace tile_ir::metal {

// Runs DefaultMetalPipeline() over a copy of `module`. Errors name the failing
// pass, the kernel and, for operations the target refuses, the missing capability.
absl::StatusOr<Module> LowerForMetal(const Module& module);

}  // namespace tile_ir::metal

#endif  // TARGETS_METAL_METAL_LOWERING_H_
