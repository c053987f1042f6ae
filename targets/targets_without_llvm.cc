// cuda, hip, metal.
#include "targets/targets_without_llvm.h"

#include "targets/cuda/cuda_target.h"
#include "targets/hip/hip_target.h"
#include "targets/metal/metal_target.h"

namespace tile_ir::targets {

void AddTargetsWithoutLlvm(TargetRegistry& registry) {
  registry.Add(cuda::MakeCudaFamily());
  registry.Add(hip::MakeHipFamily());
  registry.Add(metal::MakeMetalFamily());
}

}  // namespace tile_ir::targets
