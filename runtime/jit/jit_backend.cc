// The kernel's part of the context.
#include "runtime/jit/jit_backend.h"

#include "absl/strings/str_cat.h"
#include "runtime/jit/sha256.h"
#include "tile_ir/printer.h"

namespace tile_ir::runtime::jit {

void AddTargetFields(CacheContext& context, const targets::Target& target) {
  for (const auto& [field, value] : target.CacheFields()) context.Set(field, value);
}

CacheContext KernelContext(const JitBackend& backend, const Module& module,
                           std::string_view kernel_name, std::string_view kind) {
  CacheContext context;
  context.Set("kind", kind);
  context.Set("kernel", kernel_name);
  // The producer lines do not change the binary; the kernel's text does.
  std::string text;
  for (const Kernel& kernel : module.kernels) {
    if (kernel->name == kernel_name) text = Print(*kernel);
  }
  context.Set("ir_sha256", Sha256Hex(text));
  const CacheContext base = backend.BaseContext();
  for (const auto& [field, value] : base.fields()) context.Set(field, value);
  return context;
}

}  // namespace tile_ir::runtime::jit
