// The Metal backend's prober: MSL from the Metal target. Nothing on these
// machines compiles or runs MSL (Apple's toolchain and GPUs only), so
// generated is its ceiling here.
#ifndef TOOLS_TILE_MATRIX_METAL_PROBER_H_
#define TOOLS_TILE_MATRIX_METAL_PROBER_H_

#include <memory>

#include "tools/tile_matrix/prober.h"

namespace tile_ir::matrix {

std::unique_ptr<BackendProber> MakeMetalProber();

}  // namespace tile_ir::matrix

#endif  // TOOLS_TILE_MATRIX_METAL_PROBER_H_
