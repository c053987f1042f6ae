// The CPU target's public entry points: lower a tile-level module with the
// CPU pipeline, then generate, optimize and JIT-compile it (cpu_codegen.h,
// which this header includes, has the code generation entry points and the
// semantics of the generated code). No GPU and no external compiler is needed
// at run time.
#ifndef TARGETS_CPU_CPU_COMPILER_H_
#define TARGETS_CPU_CPU_COMPILER_H_

#include <memory>

#include "absl/status/statusor.h"
#include "targets/cpu/cpu_codegen.h"
#include "targets/cpu/cpu_target_info.h"  // DefaultCpuPipeline
#include "tile_ir/module.h"

namespace tile_ir::cpu {

// Runs the pipeline (options.pipeline, or DefaultCpuPipeline()); the result is
// thread-level IR (docs/LOWERING.md).
absl::StatusOr<Module> LowerForCpu(const Module& module, const CpuCompileOptions& options = {});

// Lower + generate + optimize + JIT. Errors name the kernel and, for
// unsupported operations, the missing capability.
absl::StatusOr<std::unique_ptr<CpuExecutable>> CompileForCpu(const Module& module,
                                                             const CpuCompileOptions& options = {});

}  // namespace tile_ir::cpu

#endif  // TARGETS_CPU_CPU_COMPILER_H_
