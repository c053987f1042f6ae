// The backends, in column order.
#include "tools/tile_matrix/all_probers.h"

#include "tools/tile_matrix/cpu_prober.h"
#include "tools/tile_matrix/cuda_prober.h"
#include "tools/tile_matrix/hip_prober.h"
#include "tools/tile_matrix/metal_prober.h"

namespace tile_ir::matrix {

Probers AllProbers() {
  Probers probers;
  probers.push_back(MakeCpuProber());
  probers.push_back(MakeCudaProber());
  probers.push_back(MakeHipProber());
  probers.push_back(MakeMetalProber());
  return probers;
}

}  // namespace tile_ir::matrix
