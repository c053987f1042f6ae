// The HIP backend's prober: HIP C++ for every known AMD architecture,
// compiled by hipcc into a code object where hipcc is installed. Nothing in
// tile runs HIP code yet (no HIP runtime device), so compiled is its ceiling.
#ifndef TOOLS_TILE_MATRIX_HIP_PROBER_H_
#define TOOLS_TILE_MATRIX_HIP_PROBER_H_

#include <memory>

#include "tools/tile_matrix/prober.h"

namespace tile_ir::matrix {

std::unique_ptr<BackendProber> MakeHipProber();

}  // namespace tile_ir::matrix

#endif  // TOOLS_TILE_MATRIX_HIP_PROBER_H_
