// Entry points of the verifier: module-level checks, then each kernel.
#include "tile_ir/verifier.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tile_ir/verifier_diagnostics.h"
#include "tile_ir/verifier_kernel.h"

namespace tile_ir {

std::vector<Diagnostic> VerifyModule(const Module& module) {
  verifier::DiagnosticSink sink;
  absl::flat_hash_set<std::string> kernel_names;
  for (size_t i = 0; i < module.kernels.size(); ++i) {
    const Kernel& kernel = module.kernels[i];
    sink.set_kernel("");
    if (!kernel) {
      sink.ReportPlain(SourceLoc{}, absl::StrCat("kernel ", i, " of the module is missing"));
      continue;
    }
    if (!kernel_names.insert(kernel->name).second) {
      sink.ReportPlain(kernel->loc, absl::StrCat("two kernels are named '", kernel->name,
                                                 "' (kernel names must be unique in a module)"));
    }
    sink.set_kernel(kernel->name);
    verifier::KernelVerifier(*kernel, sink).Run();
  }
  return std::move(sink).Finish();
}

std::vector<Diagnostic> VerifyKernel(const KernelNode& kernel) {
  verifier::DiagnosticSink sink;
  sink.set_kernel(kernel.name);
  verifier::KernelVerifier(kernel, sink).Run();
  return std::move(sink).Finish();
}

absl::Status Verify(const Module& module) {
  std::vector<Diagnostic> diagnostics = VerifyModule(module);
  if (diagnostics.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(
      diagnostics, "\n",
      [](std::string* out, const Diagnostic& diagnostic) { out->append(diagnostic.ToString()); }));
}

}  // namespace tile_ir
