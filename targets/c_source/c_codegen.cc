// EmitModuleSource: the contract check, then one KernelEmitter per kernel.
#include "targets/c_source/c_codegen.h"

#include "absl/strings/str_cat.h"
#include "targets/c_source/c_names.h"
#include "targets/c_source/kernel_emitter.h"
#include "targets/c_source/thread_level_check.h"

namespace tile_ir::c_source {

absl::StatusOr<std::string> EmitModuleSource(const Module& lowered, const Dialect& dialect,
                                             const std::string& header,
                                             const std::string& kernel_name) {
  std::string source = header;
  bool found = kernel_name.empty();
  const std::vector<std::string> symbols = KernelSymbols(lowered, dialect);
  for (size_t i = 0; i < lowered.kernels.size(); ++i) {
    const Kernel& kernel = lowered.kernels[i];
    if (!kernel_name.empty() && kernel->name != kernel_name) continue;
    found = true;
    absl::Status contract = CheckThreadLevel(*kernel, dialect);
    if (!contract.ok()) return contract;
    absl::StatusOr<std::string> function = KernelEmitter(*kernel, dialect, symbols[i]).Emit();
    if (!function.ok()) return function.status();
    absl::StrAppend(&source, "\n", *function);
  }
  if (!found) {
    return absl::NotFoundError(absl::StrCat("the module has no kernel '", kernel_name, "'"));
  }
  return source;
}

}  // namespace tile_ir::c_source
