// Generating, optimizing and emitting an object file for the host.
#include "targets/cpu/object_code.h"

#include "absl/strings/str_cat.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Support/raw_ostream.h"
#include "targets/cpu/llvm_backend.h"
#include "targets/cpu/llvm_codegen.h"

namespace tile_ir::cpu {

absl::StatusOr<llvm::orc::JITTargetMachineBuilder> ObjectMachineBuilder() {
  absl::StatusOr<llvm::orc::JITTargetMachineBuilder> builder = HostMachineBuilder(kObjectOptLevel);
  if (!builder.ok()) return builder.status();
  builder->setRelocationModel(llvm::Reloc::PIC_);
  return builder;
}

absl::StatusOr<std::string> EmitObjectCode(const Module& lowered) {
  absl::StatusOr<llvm::orc::JITTargetMachineBuilder> builder = ObjectMachineBuilder();
  if (!builder.ok()) return builder.status();
  auto machine = builder->createTargetMachine();
  if (!machine) {
    return absl::InternalError(absl::StrCat("cpu: no target machine for the host: ",
                                            llvm::toString(machine.takeError())));
  }
  llvm::LLVMContext context;
  absl::StatusOr<std::unique_ptr<llvm::Module>> module =
      GenerateLlvmModule(lowered, context, **machine);
  if (!module.ok()) return module.status();
  if (absl::Status status = OptimizeModule(**module, **machine, kObjectOptLevel); !status.ok()) {
    return status;
  }
  llvm::SmallString<0> object;
  llvm::raw_svector_ostream stream(object);
  llvm::legacy::PassManager codegen;
  if ((*machine)->addPassesToEmitFile(codegen, stream, nullptr, llvm::CGFT_ObjectFile)) {
    return absl::InternalError("cpu: the host target machine cannot emit object files");
  }
  codegen.run(**module);
  return std::string(object.str());
}

}  // namespace tile_ir::cpu
