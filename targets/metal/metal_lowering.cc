// LowerForMetal: the MetalTarget.
#include "targets/metal/metal_lowering.h"

#include "targets/metal/metal_target.h"

namespace tile_ir::metal {

absl::StatusOr<Module> LowerForMetal(const Module& module) {
  return MakeMetalTarget()->Lower(module);
}

}  // namespace tile_ir::metal
