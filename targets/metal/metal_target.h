// The Metal target family: "metal" (MSL 3.1). Lowers with DefaultMetalPipeline
// and emits MSL over the device library; there is no Metal compiler off macOS,
// so Compile is Unavailable, saying so.
#ifndef TARGETS_METAL_METAL_TARGET_H_
#define TARGETS_METAL_METAL_TARGET_H_

#include <memory>

#include "targets/target.h"

namespace tile_ir::metal {

std::unique_ptr<targets::TargetFamily> MakeMetalFamily();

// The target without a registry.
std::unique_ptr<targets::Target> MakeMetalTarget();

}  // namespace tile_ir::metal

#endif  // TARGETS_METAL_METAL_TARGET_H_
