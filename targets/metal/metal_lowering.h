// Lowering a tile-level module for Metal: the pass manager over the Metal
// pipeline, giving the thread-level IR metal_codegen.h emits.
#ifndef TARGETS_METAL_METAL_LOWERING_H_
#define TARGETS_METAL_METAL_LOWERING_H_

#include <string>

#include "absl/status/statusor.h"
#include "targets/metal/metal_target_info.h"  // DefaultMetalPipeline, RegisterMetalTarget
#include "tile_ir/module.h"

namespace tile_ir::metal {

// Registers the Metal target, then runs DefaultMetalPipeline() (or `pipeline`
// when not empty) over a copy of `module`. Errors name the failing pass, the
// kernel and, for operations the target refuses, the missing capability.
absl::StatusOr<Module> LowerForMetal(const Module& module, const std::string& pipeline = "");

}  // namespace tile_ir::metal

#endif  // TARGETS_METAL_METAL_LOWERING_H_
