// The prober of one target family, through the Target objects it makes
// (targets/target.h): generate is the target's Lower and Emit, compile its
// Compile with the real compiler when FindCompiler finds one, and run opens
// the runtime's device for the target when the binary links one and the
// machine has it. Nothing here names a vendor.
#ifndef TOOLS_TILE_MATRIX_TARGET_PROBER_H_
#define TOOLS_TILE_MATRIX_TARGET_PROBER_H_

#include <memory>
#include <string_view>

#include "targets/target_registry.h"
#include "tools/tile_matrix/prober.h"

namespace tile_ir::matrix {

// A prober for `family` of `targets`: one column per architecture, oldest
// first (or one for a family that takes none).
std::unique_ptr<BackendProber> MakeTargetProber(const targets::TargetRegistry& targets,
                                                std::string_view family);

}  // namespace tile_ir::matrix

#endif  // TOOLS_TILE_MATRIX_TARGET_PROBER_H_
