#include "tools/common/targets.h"

#include "targets/cpu/cpu_target_info.h"
#include "targets/cuda/cuda_target_info.h"

namespace tile_ir::cli {

void RegisterAllTargets() {
  cpu::RegisterCpuTarget();
  // "cuda" means sm_90a; "cuda:sm_80" and "cuda:sm_90a" pin an architecture.
  cuda::RegisterCudaTarget("sm_90a").IgnoreError();
}

}  // namespace tile_ir::cli
