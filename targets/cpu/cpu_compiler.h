// Lowering a tile-level module with the CPU pipeline (the CPU target's Lower),
// for what looks at the code generator's output: cpu-translate, the bench's
// assembly, tests (cpu_codegen.h, which this header includes, has the code
// generation entry points and the semantics of the generated code). A kernel
// that is to run is compiled by the CPU target's CompileKernel (cpu_target.h).
#ifndef TARGETS_CPU_CPU_COMPILER_H_
#define TARGETS_CPU_CPU_COMPILER_H_

#include "absl/status/statusor.h"
#include "targets/cpu/cpu_codegen.h"
#include "targets/cpu/cpu_target_info.h"  // DefaultCpuPipeline
#include "tile_ir/module.h"

namespace tile_ir::cpu {

// Runs the pipeline (options.pipeline, or DefaultCpuPipeline()); the result is
// thread-level IR (docs/LOWERING.md).
absl::StatusOr<Module> LowerForCpu(const Module& module, const CpuCompileOptions& options = {});

}  // namespace tile_ir::cpu

#endif  // TARGETS_CPU_CPU_COMPILER_H_
