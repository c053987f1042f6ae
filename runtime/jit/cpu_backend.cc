// The CPU target's object code in and out of the cache.
#include "runtime/jit/cpu_backend.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "llvm/Config/llvm-config.h"
#include "runtime/cpu/cpu_device.h"
#include "runtime/jit/cache_entry.h"
#include "targets/cpu/host_cpu.h"
#include "targets/target_registry.h"
#include "tile_ir/printer.h"

namespace tile_ir::runtime::jit {
namespace {

class CpuJitBackend final : public JitBackend {
 public:
  explicit CpuJitBackend(std::unique_ptr<Device> device) : device_(std::move(device)) {
    // What the target's code depends on (target, pipeline, options), then the host.
    AddTargetFields(context_, device_->target());
    context_.Set("arch", tile_ir::cpu::HostCpuName());
    context_.Set("cpu_features", tile_ir::cpu::HostCpuFeatures());
    context_.Set("llvm", LLVM_VERSION_STRING);
    context_.Set("project_version", ProjectVersion());
    AddCompileEnvironment(context_);
  }

  Device& device() override { return *device_; }
  const targets::Target& target() const override { return device_->target(); }
  CacheContext BaseContext() const override { return context_; }

  absl::StatusOr<CompiledKernel> Compile(const Module& module,
                                         std::string_view kernel_name) override {
    absl::StatusOr<targets::CompiledKernel> compiled =
        device_->target().CompileKernel(module, kernel_name);
    if (!compiled.ok()) return compiled.status();
    CompiledKernel result;
    result.artifact =
        PackSections({{"lowered", Print(compiled->lowered)}, {"object", compiled->binary.bytes}});
    absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel =
        device_->LoadCompiled(*std::move(compiled));
    if (!kernel.ok()) return kernel.status();
    result.kernel = *std::move(kernel);
    return result;
  }

  absl::StatusOr<std::unique_ptr<LoadedKernel>> LoadArtifact(
      std::string_view artifact, std::string_view kernel_name) override {
    absl::StatusOr<std::vector<std::pair<std::string, std::string>>> sections =
        UnpackSections(artifact);
    if (!sections.ok()) return sections.status();
    if (sections->size() != 2 || (*sections)[0].first != "lowered" ||
        (*sections)[1].first != "object") {
      return absl::DataLossError("cpu jit: the artifact is not 'lowered' then 'object'");
    }
    absl::StatusOr<Module> lowered =
        text::ParseModule((*sections)[0].second, "<cached lowered module>");
    if (!lowered.ok()) return lowered.status();
    targets::CompiledKernel compiled;
    compiled.kernel = std::string(kernel_name);
    compiled.lowered = *std::move(lowered);
    compiled.binary.format = "object";
    compiled.binary.entry = absl::StrCat(std::string(kernel_name), "_block");
    compiled.binary.bytes = std::move((*sections)[1].second);
    return device_->LoadCompiled(std::move(compiled));
  }

 private:
  std::unique_ptr<Device> device_;
  CacheContext context_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<JitBackend>> OpenCpuJitBackend(std::string_view target_name) {
  // "cpu" with an architecture or options is refused, naming what it takes.
  absl::StatusOr<std::shared_ptr<const targets::Target>> target =
      targets::LinkedTargets().Resolve(target_name);
  if (!target.ok()) return target.status();
  absl::StatusOr<std::unique_ptr<Device>> device = OpenCpuDevice();
  if (!device.ok()) return device.status();
  return std::make_unique<CpuJitBackend>(*std::move(device));
}

}  // namespace tile_ir::runtime::jit
