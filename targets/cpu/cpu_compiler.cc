// Lowering entry points (cpu_compiler.h): the pass manager over the CPU
// pipeline, then the code generation of cpu_codegen.h.
#include "targets/cpu/cpu_compiler.h"

#include <string>

#include "passes/all_passes.h"
#include "passes/pass_manager.h"

namespace tile_ir::cpu {

absl::StatusOr<Module> LowerForCpu(const Module& module, const CpuCompileOptions& options) {
  RegisterCpuTarget();
  const std::string pipeline = options.pipeline.empty() ? DefaultCpuPipeline() : options.pipeline;
  absl::StatusOr<passes::PassManager> manager =
      passes::PassManager::Create(passes::BuiltinPassRegistry(), pipeline, {});
  if (!manager.ok()) return manager.status();
  Module lowered = module;
  absl::Status status = manager->Run(lowered);
  if (!status.ok()) return status;
  return lowered;
}

absl::StatusOr<std::unique_ptr<CpuExecutable>> CompileForCpu(const Module& module,
                                                             const CpuCompileOptions& options) {
  absl::StatusOr<Module> lowered = LowerForCpu(module, options);
  if (!lowered.ok()) return lowered.status();
  return CompileLoweredForCpu(*lowered, options);
}

}  // namespace tile_ir::cpu
