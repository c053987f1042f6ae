// LowerForCpu (cpu_compiler.h): the CPU target's Lower.
#include "targets/cpu/cpu_compiler.h"

#include "targets/cpu/cpu_target.h"

namespace tile_ir::cpu {

absl::StatusOr<Module> LowerForCpu(const Module& module, const CpuCompileOptions& options) {
  return MakeCpuTarget()->Lower(module, options.pipeline);
}

}  // namespace tile_ir::cpu
