// The kernel's part of the context, and the backend registry.
#include "runtime/jit/jit_backend.h"

#include <map>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/jit/sha256.h"
#include "targets/target_name.h"
#include "tile_ir/printer.h"

namespace tile_ir::runtime::jit {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, JitBackendFactory, std::less<>> factories;
};

Registry& GetRegistry() {
  static Registry* registry = new Registry;
  return *registry;
}

}  // namespace

absl::StatusOr<Module> SingleKernelModule(const Module& module, std::string_view kernel_name) {
  Module single{module.ir_version, module.producer, module.producer_version, {}};
  std::vector<std::string> names;
  for (const Kernel& kernel : module.kernels) {
    names.push_back(kernel->name);
    if (kernel->name == kernel_name) single.kernels.push_back(kernel);
  }
  if (single.kernels.empty()) {
    return absl::NotFoundError(absl::StrCat("no kernel named '", std::string(kernel_name),
                                            "' in the module (kernels: ",
                                            absl::StrJoin(names, ", "), ")"));
  }
  return single;
}

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

bool RegisterJitBackend(std::string_view name, JitBackendFactory factory) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  return registry.factories.emplace(std::string(name), std::move(factory)).second;
}

absl::StatusOr<std::unique_ptr<JitBackend>> OpenJitBackend(std::string_view target) {
  absl::StatusOr<targets::TargetName> parsed = targets::ParseTargetName(target);
  if (!parsed.ok()) return parsed.status();
  const std::string& name = parsed->family;
  Registry& registry = GetRegistry();
  JitBackendFactory factory;
  std::vector<std::string> names;
  {
    std::lock_guard<std::mutex> lock(registry.mutex);
    auto it = registry.factories.find(name);
    if (it != registry.factories.end()) factory = it->second;
    for (const auto& [known, unused] : registry.factories) names.push_back(known);
  }
  if (!factory) {
    return absl::NotFoundError(absl::StrCat("no JIT backend for target '", std::string(target),
                                            "' in this binary (backends: ",
                                            absl::StrJoin(names, ", "), ")"));
  }
  return factory(target);
}

}  // namespace tile_ir::runtime::jit
