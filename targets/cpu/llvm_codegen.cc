// Drives KernelEmitter over a module and checks the result with LLVM's verifier.
#include "targets/cpu/llvm_codegen.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "targets/cpu/kernel_emitter.h"
#include "targets/cpu/thread_level_check.h"
#include "tile_ir/verifier.h"

namespace tile_ir::cpu {

absl::StatusOr<std::unique_ptr<llvm::Module>> GenerateLlvmModule(
    const Module& lowered, llvm::LLVMContext& context, const llvm::TargetMachine& machine) {
  absl::Status status = Verify(lowered);
  if (!status.ok()) return status;
  status = CheckCpuThreadLevel(lowered);
  if (!status.ok()) return status;
  auto module = std::make_unique<llvm::Module>(
      lowered.kernels.empty() ? "tile" : lowered.kernels.front()->name, context);
  module->setTargetTriple(machine.getTargetTriple().str());
  module->setDataLayout(machine.createDataLayout());
  std::string cpu = machine.getTargetCPU().str();
  std::string features = machine.getTargetFeatureString().str();
  for (const Kernel& kernel : lowered.kernels) {
    status = KernelEmitter(*kernel, *module, cpu, features).Emit();
    if (!status.ok()) return status;
  }
  std::string problems;
  llvm::raw_string_ostream stream(problems);
  if (llvm::verifyModule(*module, &stream)) {
    return absl::InternalError(absl::StrCat(
        "cpu target: generated LLVM IR is invalid (a code generator bug): ", stream.str()));
  }
  return module;
}

}  // namespace tile_ir::cpu
