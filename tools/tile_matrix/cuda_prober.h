// The CUDA backend's prober: CUDA C++ for every known architecture, compiled
// by NVRTC where it can be loaded, run and checked on a GPU of that exact
// architecture where one is present. Links no LLVM (tile-matrix-gpu).
#ifndef TOOLS_TILE_MATRIX_CUDA_PROBER_H_
#define TOOLS_TILE_MATRIX_CUDA_PROBER_H_

#include <memory>

#include "tools/tile_matrix/prober.h"

namespace tile_ir::matrix {

std::unique_ptr<BackendProber> MakeCudaProber();

}  // namespace tile_ir::matrix

#endif  // TOOLS_TILE_MATRIX_CUDA_PROBER_H_
