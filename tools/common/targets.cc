#include "tools/common/targets.h"

#include "targets/cpu/cpu_target_info.h"
#include "targets/cuda/cuda_target_info.h"
#include "targets/hip/hip_target_info.h"
#include "targets/metal/metal_target_info.h"

namespace tile_ir::cli {

void RegisterAllTargets() {
  cpu::RegisterCpuTarget();
  // "cuda" means sm_90a; "cuda:sm_80" and "cuda:sm_90a" pin an architecture;
  // "cuda:sm_90a-wgmma" and "cuda:sm_90a-mma" pin how sm_90a runs gemms.
  cuda::RegisterCudaTarget("sm_90a").IgnoreError();
  // "hip" means gfx90a; "hip:gfx90a" and "hip:gfx940" pin an architecture.
  hip::RegisterHipTarget("gfx90a").IgnoreError();
  metal::RegisterMetalTarget();
}

}  // namespace tile_ir::cli
