// The base context from the target and the device, compiles through the
// target, loads through the device, and the kernel's part of the context.
#include "runtime/jit/jit_backend.h"

#include <utility>

#include "runtime/jit/artifact.h"
#include "runtime/jit/sha256.h"
#include "tile_ir/printer.h"

namespace tile_ir::runtime::jit {

JitBackend::JitBackend(std::unique_ptr<Device> device) : device_(std::move(device)) {
  for (const auto& [field, value] : device_->target().CacheFields()) context_.Set(field, value);
  for (const auto& [field, value] : device_->CacheFields()) context_.Set(field, value);
  context_.Set("project_version", ProjectVersion());
  AddCompileEnvironment(context_);
}

absl::StatusOr<CompiledKernel> JitBackend::Compile(const Module& module,
                                                   std::string_view kernel_name) {
  absl::StatusOr<targets::CompiledKernel> compiled =
      device_->target().CompileKernel(module, kernel_name);
  if (!compiled.ok()) return compiled.status();
  CompiledKernel result;
  result.artifact = PackCompiledKernel(*compiled);
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel =
      device_->LoadCompiled(*std::move(compiled));
  if (!kernel.ok()) return kernel.status();
  result.kernel = *std::move(kernel);
  return result;
}

absl::StatusOr<std::unique_ptr<LoadedKernel>> JitBackend::LoadArtifact(
    std::string_view artifact, std::string_view kernel_name) {
  absl::StatusOr<targets::CompiledKernel> compiled = UnpackCompiledKernel(artifact, kernel_name);
  if (!compiled.ok()) return compiled.status();
  return device_->LoadCompiled(*std::move(compiled));
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
  for (const auto& [field, value] : backend.BaseContext().fields()) context.Set(field, value);
  return context;
}

}  // namespace tile_ir::runtime::jit
