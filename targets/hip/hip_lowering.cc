// LowerForHip: the HipTarget of one architecture.
#include "targets/hip/hip_lowering.h"

#include "targets/hip/hip_target.h"

namespace tile_ir::hip {

absl::StatusOr<Module> LowerForHip(const Module& module, const std::string& arch) {
  if (absl::Status known = CheckHipArch(arch); !known.ok()) return known;
  return MakeHipTarget(arch)->Lower(module);
}

}  // namespace tile_ir::hip
