// Code generation entry points (cpu_codegen.h), composed from the code
// generator and the LLVM backend.
#include "targets/cpu/cpu_codegen.h"

#include <memory>
#include <string>
#include <utility>

#include "llvm/IR/LLVMContext.h"
#include "targets/cpu/llvm_backend.h"
#include "targets/cpu/llvm_codegen.h"

namespace tile_ir::cpu {
namespace {

// An LLVM module generated for the host, optimized when asked, with the
// context and the machine it belongs to.
struct HostModule {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::TargetMachine> machine;
  std::unique_ptr<llvm::Module> module;
};

absl::StatusOr<HostModule> Generate(const Module& lowered, const CpuCompileOptions& options,
                                    bool optimize) {
  HostModule result;
  absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> machine =
      CreateHostTargetMachine(options.opt_level);
  if (!machine.ok()) return machine.status();
  result.machine = std::move(*machine);
  result.context = std::make_unique<llvm::LLVMContext>();
  absl::StatusOr<std::unique_ptr<llvm::Module>> module =
      GenerateLlvmModule(lowered, *result.context, *result.machine);
  if (!module.ok()) return module.status();
  result.module = std::move(*module);
  if (optimize) {
    absl::Status optimized = OptimizeModule(*result.module, *result.machine, options.opt_level);
    if (!optimized.ok()) return optimized;
  }
  return result;
}

}  // namespace

absl::StatusOr<std::string> EmitLlvmIr(const Module& lowered, bool optimize,
                                       const CpuCompileOptions& options) {
  absl::StatusOr<HostModule> host = Generate(lowered, options, optimize);
  if (!host.ok()) return host.status();
  return PrintLlvmIr(*host->module);
}

absl::StatusOr<std::string> EmitAssembly(const Module& lowered, const CpuCompileOptions& options) {
  absl::StatusOr<HostModule> host = Generate(lowered, options, /*optimize=*/true);
  if (!host.ok()) return host.status();
  return EmitAssemblyText(*host->module, *host->machine);
}

}  // namespace tile_ir::cpu
