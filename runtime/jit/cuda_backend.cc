// Cubins in and out of the cache.
#include "runtime/jit/cuda_backend.h"

#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "frontends/text/parser.h"
#include "runtime/cuda/cuda_device.h"
#include "runtime/jit/cache_entry.h"
#include "targets/target_registry.h"
#include "tile_ir/printer.h"

namespace tile_ir::runtime::jit {
namespace {

class CudaJitBackend final : public JitBackend {
 public:
  explicit CudaJitBackend(std::unique_ptr<cuda::CudaDevice> device) : device_(std::move(device)) {
    // What the target's code depends on (target, pipeline, device library,
    // options), then what this machine adds: the GPU, driver and compiler.
    AddTargetFields(context_, device_->target());
    context_.Set("arch", device_->context()->info().arch);
    context_.Set("gpu", device_->context()->info().name);
    context_.Set("cuda_driver", device_->context()->driver().version());
    absl::StatusOr<std::string> compiler = device_->target().FindCompiler();
    context_.Set("compiler", compiler.ok() ? *compiler : "unavailable");
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
    result.artifact = PackCudaArtifact(*compiled);
    absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel =
        device_->LoadCompiled(*std::move(compiled));
    if (!kernel.ok()) return kernel.status();
    result.kernel = *std::move(kernel);
    return result;
  }

  absl::StatusOr<std::unique_ptr<LoadedKernel>> LoadArtifact(
      std::string_view artifact, std::string_view kernel_name) override {
    absl::StatusOr<targets::CompiledKernel> compiled = UnpackCudaArtifact(artifact, kernel_name);
    if (!compiled.ok()) return compiled.status();
    return device_->LoadCompiled(*std::move(compiled));
  }

 private:
  std::unique_ptr<cuda::CudaDevice> device_;
  CacheContext context_;
};

}  // namespace

std::string PackCudaArtifact(const targets::CompiledKernel& compiled) {
  return PackSections({{"lowered", Print(compiled.lowered)},
                       {"entry", compiled.binary.entry},
                       {"shared_bytes", absl::StrCat(compiled.binary.dynamic_shared_bytes)},
                       {"cubin", compiled.binary.bytes}});
}

absl::StatusOr<targets::CompiledKernel> UnpackCudaArtifact(std::string_view artifact,
                                                           std::string_view kernel_name) {
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> sections =
      UnpackSections(artifact);
  if (!sections.ok()) return sections.status();
  if (sections->size() != 4 || (*sections)[0].first != "lowered" ||
      (*sections)[1].first != "entry" || (*sections)[2].first != "shared_bytes" ||
      (*sections)[3].first != "cubin") {
    return absl::DataLossError("cuda jit: the artifact is not lowered, entry, shared_bytes, cubin");
  }
  // The intrinsics the lowering emits (cuda.gemm_ss, ...) are known once the
  // families are (targets/target_registry.h), before anything in this process lowered.
  (void)targets::LinkedTargets();
  absl::StatusOr<Module> lowered =
      text::ParseModule((*sections)[0].second, "<cached lowered module>");
  if (!lowered.ok()) return lowered.status();
  targets::CompiledKernel compiled;
  compiled.kernel = std::string(kernel_name);
  compiled.lowered = *std::move(lowered);
  compiled.binary.format = "cubin";
  compiled.binary.entry = (*sections)[1].second;
  if (!absl::SimpleAtoi((*sections)[2].second, &compiled.binary.dynamic_shared_bytes)) {
    return absl::DataLossError("cuda jit: bad shared_bytes section");
  }
  compiled.binary.bytes = std::move((*sections)[3].second);
  return compiled;
}

absl::StatusOr<std::unique_ptr<JitBackend>> OpenCudaJitBackend(std::string_view target) {
  absl::StatusOr<targets::TargetName> name = targets::ParseTargetName(target);
  if (!name.ok()) return name.status();
  cuda::CudaDeviceOptions options;
  options.target = *std::move(name);
  absl::StatusOr<std::unique_ptr<cuda::CudaDevice>> device = cuda::OpenCudaDevice(options);
  if (!device.ok()) return device.status();
  return std::make_unique<CudaJitBackend>(*std::move(device));
}

}  // namespace tile_ir::runtime::jit
