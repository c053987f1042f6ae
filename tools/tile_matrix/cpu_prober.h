// The CPU backend's prober: LLVM IR from the CPU target, compiled by LLVM's
// ORC JIT, run and checked on this machine's CPU. Links LLVM.
#ifndef TOOLS_TILE_MATRIX_CPU_PROBER_H_
#define TOOLS_TILE_MATRIX_CPU_PROBER_H_

#include <memory>

#include "tools/tile_matrix/prober.h"

namespace tile_ir::matrix {

std::unique_ptr<BackendProber> MakeCpuProber();

}  // namespace tile_ir::matrix

#endif  // TOOLS_TILE_MATRIX_CPU_PROBER_H_
