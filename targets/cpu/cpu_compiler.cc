// Lowering entry points (cpu_compiler.h): the built-in pipeline driver over the
// CPU pipeline, then the code generation of cpu_codegen.h.
#include "targets/cpu/cpu_compiler.h"

#include <string>

#include "targets/cpu/cpu_target.h"

namespace tile_ir::cpu {

absl::StatusOr<Module> LowerForCpu(const Module& module, const CpuCompileOptions& options) {
  return MakeCpuTarget()->Lower(module, options.pipeline);
}

absl::StatusOr<std::unique_ptr<CpuExecutable>> CompileForCpu(const Module& module,
                                                             const CpuCompileOptions& options) {
  absl::StatusOr<Module> lowered = LowerForCpu(module, options);
  if (!lowered.ok()) return lowered.status();
  return CompileLoweredForCpu(*lowered, options);
}

}  // namespace tile_ir::cpu
