// Thread-level tile IR to an LLVM module: one block function per kernel, with
// the calling convention of docs/LOWERING.md, for a given CPU and features.
#ifndef TARGETS_CPU_LLVM_CODEGEN_H_
#define TARGETS_CPU_LLVM_CODEGEN_H_

#include <memory>

#include "absl/status/statusor.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"
#include "tile_ir/module.h"

namespace tile_ir::cpu {

// Verifies `lowered` (tile_ir::Verify, then CheckCpuThreadLevel) and builds
// `<kernel>_block` for each kernel in a module for `machine`'s triple, data
// layout, CPU and features. Errors name the kernel, the node and its location.
absl::StatusOr<std::unique_ptr<llvm::Module>> GenerateLlvmModule(
    const Module& lowered, llvm::LLVMContext& context, const llvm::TargetMachine& machine);

}  // namespace tile_ir::cpu

#endif  // TARGETS_CPU_LLVM_CODEGEN_H_
