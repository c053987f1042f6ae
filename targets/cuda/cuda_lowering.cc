// LowerForCuda: the CudaTarget of one architecture.
#include "targets/cuda/cuda_lowering.h"

#include "targets/cuda/cuda_target.h"

namespace tile_ir::cuda {

absl::StatusOr<Module> LowerForCuda(const Module& module, const std::string& arch,
                                    WgmmaUse wgmma) {
  if (absl::Status known = CheckCudaArch(arch); !known.ok()) return known;
  return MakeCudaTarget(arch, wgmma)->Lower(module);
}

}  // namespace tile_ir::cuda
