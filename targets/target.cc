// What every target shares: its pass registry, its lowering, the compile of one
// kernel and its cache fields.
#include "targets/target.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "passes/pass/pass_manager.h"
#include "passes/transforms/all_passes.h"

namespace tile_ir::targets {
namespace {

absl::Status StepError(const Target& target, std::string_view step, std::string_view kernel,
                       const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat(target.ToString(), ": ", std::string(step), " kernel '",
                                   std::string(kernel), "': ", status.message()));
}

}  // namespace

absl::StatusOr<Module> SingleKernelModule(const Module& module, std::string_view kernel) {
  Module single{module.ir_version, module.producer, module.producer_version, {}};
  std::vector<std::string> names;
  for (const Kernel& each : module.kernels) {
    names.push_back(each->name);
    if (each->name == kernel) single.kernels.push_back(each);
  }
  if (single.kernels.empty()) {
    return absl::NotFoundError(
        absl::StrCat("no kernel named '", std::string(kernel),
                     "' in the module (kernels: ", absl::StrJoin(names, ", "), ")"));
  }
  return single;
}

passes::PassRegistry Target::PassRegistry() const {
  passes::PassRegistry registry = passes::BuiltinPassRegistry();
  for (passes::PassInfo& pass : Passes()) {
    // A clash is a bug in the target, caught by its tests (target_registry_test).
    registry.Register(std::move(pass)).IgnoreError();
  }
  return registry;
}

absl::StatusOr<Module> Target::Lower(const Module& module, std::string_view pipeline,
                                     std::vector<std::string>* remarks) const {
  passes::PassManagerOptions options;
  options.target = info();
  options.remarks = remarks;
  const std::string text = pipeline.empty() ? DefaultPipeline() : std::string(pipeline);
  absl::StatusOr<passes::PassManager> manager =
      passes::PassManager::Create(PassRegistry(), text, std::move(options));
  if (!manager.ok()) return manager.status();
  Module lowered = module;
  if (absl::Status status = manager->Run(lowered); !status.ok()) return status;
  return lowered;
}

absl::StatusOr<CompiledKernel> Target::CompileKernel(const Module& module,
                                                     std::string_view kernel) const {
  absl::StatusOr<Module> single = SingleKernelModule(module, kernel);
  if (!single.ok()) return single.status();
  absl::StatusOr<Module> lowered = Lower(*single);
  if (!lowered.ok()) return StepError(*this, "lowering", kernel, lowered.status());
  std::string source;
  if (CompilesFromSource()) {
    EmitOptions emit;
    emit.kernel = std::string(kernel);
    absl::StatusOr<std::string> emitted = Emit(*lowered, emit);
    if (!emitted.ok()) return StepError(*this, "emitting", kernel, emitted.status());
    source = *std::move(emitted);
  }
  absl::StatusOr<Binary> binary = Compile(*lowered, source, kernel);
  if (!binary.ok()) return StepError(*this, "compiling", kernel, binary.status());
  CompiledKernel compiled{std::string(kernel), *std::move(lowered), *std::move(binary)};
  if (CompilesFromSource()) {
    compiled.binary.files.insert(compiled.binary.files.begin(),
                                 {source_extension(), std::move(source)});
  }
  return compiled;
}

std::vector<std::pair<std::string, std::string>> Target::CacheFields() const {
  return {{"target", ToString()}, {"pipeline", DefaultPipeline()}};
}

}  // namespace tile_ir::targets
