// A CpuExecutable over ORC's LLJIT: the optimized module linked in memory,
// with libm and the C runtime resolved from the running process.
#ifndef TARGETS_CPU_JIT_EXECUTABLE_H_
#define TARGETS_CPU_JIT_EXECUTABLE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "targets/cpu/cpu_codegen.h"
#include "tile_ir/module.h"

namespace tile_ir::cpu {

// Compiles `module` (generated from `lowered` in `context`) to host code and
// resolves every kernel's block function, so that compile errors surface here
// rather than at Lookup.
absl::StatusOr<std::unique_ptr<CpuExecutable>> JitCompile(
    Module lowered, std::unique_ptr<llvm::LLVMContext> context,
    std::unique_ptr<llvm::Module> module, llvm::orc::JITTargetMachineBuilder machine);

}  // namespace tile_ir::cpu

#endif  // TARGETS_CPU_JIT_EXECUTABLE_H_
