// The CPU target family: "cpu", the machine it runs on. Lowers with
// DefaultCpuPipeline, emits optimized LLVM IR, compiles to object code with
// LLVM (linked into the binary: the one target that needs LLVM).
#ifndef TARGETS_CPU_CPU_TARGET_H_
#define TARGETS_CPU_CPU_TARGET_H_

#include <memory>

#include "targets/target.h"

namespace tile_ir::cpu {

std::unique_ptr<targets::TargetFamily> MakeCpuFamily();

// The target without a registry.
std::unique_ptr<targets::Target> MakeCpuTarget();

}  // namespace tile_ir::cpu

#endif  // TARGETS_CPU_CPU_TARGET_H_
