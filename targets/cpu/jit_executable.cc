// LLJIT ownership and kernel lookup.
#include "targets/cpu/jit_executable.h"

#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"

namespace tile_ir::cpu {
namespace {

absl::Status JitError(const std::string& what, llvm::Error error) {
  return absl::InternalError(
      absl::StrCat("cpu target: ", what, ": ", llvm::toString(std::move(error))));
}

class JitExecutable final : public CpuExecutable {
 public:
  JitExecutable(Module lowered, std::unique_ptr<llvm::orc::LLJIT> jit,
                absl::flat_hash_map<std::string, BlockFn> functions)
      : lowered_(std::move(lowered)), jit_(std::move(jit)), functions_(std::move(functions)) {}

  absl::StatusOr<BlockFn> Lookup(std::string_view kernel_name) const override {
    auto it = functions_.find(std::string(kernel_name));
    if (it != functions_.end()) return it->second;
    return absl::NotFoundError(absl::StrCat("cpu target: no kernel named '",
                                            std::string(kernel_name), "' in this module"));
  }

  const Module& lowered() const override { return lowered_; }

 private:
  Module lowered_;
  std::unique_ptr<llvm::orc::LLJIT> jit_;
  absl::flat_hash_map<std::string, BlockFn> functions_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<CpuExecutable>> JitCompile(
    Module lowered, std::unique_ptr<llvm::LLVMContext> context,
    std::unique_ptr<llvm::Module> module, llvm::orc::JITTargetMachineBuilder machine) {
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(machine)).create();
  if (!jit) return JitError("cannot create the JIT", jit.takeError());
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!process) return JitError("cannot search the process for symbols", process.takeError());
  (*jit)->getMainJITDylib().addGenerator(std::move(*process));
  llvm::orc::ThreadSafeModule safe(std::move(module), std::move(context));
  if (llvm::Error error = (*jit)->addIRModule(std::move(safe))) {
    return JitError("cannot add the module to the JIT", std::move(error));
  }
  absl::flat_hash_map<std::string, BlockFn> functions;
  for (const Kernel& kernel : lowered.kernels) {
    auto address = (*jit)->lookup(kernel->name + "_block");
    if (!address) {
      return JitError(absl::StrCat("cannot compile kernel '", kernel->name, "'"),
                      address.takeError());
    }
    functions[kernel->name] = address->toPtr<BlockFn>();
  }
  return std::make_unique<JitExecutable>(std::move(lowered), std::move(*jit), std::move(functions));
}

}  // namespace tile_ir::cpu
