// The host's LLVM target machine, LLVM's optimization pipeline for it, and
// assembly output: what turns a generated module into host code.
#ifndef TARGETS_CPU_LLVM_BACKEND_H_
#define TARGETS_CPU_LLVM_BACKEND_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

namespace tile_ir::cpu {

// A builder for target machines of the host CPU with all its features
// (HostCpuName, HostCpuFeatures), generating code at `opt_level` (0-3).
absl::StatusOr<llvm::orc::JITTargetMachineBuilder> HostMachineBuilder(int opt_level);

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> CreateHostTargetMachine(int opt_level);

// LLVM's default module pipeline at `opt_level` (O3: loop and SLP
// vectorization for the machine's SIMD width, with runtime alias checks where
// buffers may overlap), using the machine's cost model.
absl::Status OptimizeModule(llvm::Module& module, llvm::TargetMachine& machine, int opt_level);

// The machine's assembly for `module`.
absl::StatusOr<std::string> EmitAssemblyText(llvm::Module& module, llvm::TargetMachine& machine);

// LLVM's textual IR of `module`.
std::string PrintLlvmIr(const llvm::Module& module);

}  // namespace tile_ir::cpu

#endif  // TARGETS_CPU_LLVM_BACKEND_H_
