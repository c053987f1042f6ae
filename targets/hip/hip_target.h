// The HIP target family: "hip[:gfx90a|gfx940]". Lowers with DefaultHipPipeline,
// emits HIP C++ over the device library, compiles with hipcc when the machine
// has it (a subprocess).
#ifndef TARGETS_HIP_HIP_TARGET_H_
#define TARGETS_HIP_HIP_TARGET_H_

#include <memory>
#include <string>

#include "targets/target.h"

namespace tile_ir::hip {

std::unique_ptr<targets::TargetFamily> MakeHipFamily();

// The target for `arch` (one of KnownHipArchs()) without a registry.
std::unique_ptr<targets::Target> MakeHipTarget(const std::string& arch);

}  // namespace tile_ir::hip

#endif  // TARGETS_HIP_HIP_TARGET_H_
