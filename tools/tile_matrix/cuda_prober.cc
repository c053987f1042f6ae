// The CUDA prober: targets "cuda:<arch>" for each known architecture.
#include "tools/tile_matrix/cuda_prober.h"

#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "runtime/cuda/cuda_device.h"
#include "targets/cuda/cuda_codegen.h"
#include "targets/cuda/cuda_lowering.h"
#include "targets/cuda/device_headers.h"
#include "targets/cuda/nvrtc_compiler.h"
#include "tools/tile_matrix/device_run.h"

namespace tile_ir::matrix {
namespace {

class CudaProber final : public BackendProber {
 public:
  std::string backend() const override { return "cuda"; }

  std::vector<TargetSpec> Targets() const override {
    std::vector<TargetSpec> targets;
    char library[17];
    std::snprintf(library, sizeof(library), "%016llx",
                  static_cast<unsigned long long>(cuda::DeviceLibraryFingerprint()));
    for (const std::string& arch : cuda::KnownCudaArchs()) {
      std::string name = absl::StrCat("cuda:", arch);
      targets.push_back(
          {name, arch,
           absl::StrCat(cuda::DefaultCudaPipeline(name), "; device library ", library)});
    }
    return targets;
  }

  MachineFacts Discover(const TargetSpec& target) override {
    MachineFacts facts;
    absl::StatusOr<std::string> nvrtc = cuda::NvrtcVersion();
    if (nvrtc.ok()) {
      facts.compiler = absl::StrCat("NVRTC ", *nvrtc);
      facts.toolkit = facts.compiler;
    } else {
      facts.no_compiler = std::string(nvrtc.status().message());
      return facts;
    }
    absl::StatusOr<std::unique_ptr<runtime::Device>> device =
        runtime::cuda::OpenCudaTarget(target.target);
    if (!device.ok()) {
      facts.no_hardware = std::string(device.status().message());
      return facts;
    }
    // "cuda: NVIDIA H200 (sm_90a, 132 SMs, 139 GiB), driver 13.0"
    facts.hardware = std::string(absl::StripPrefix((*device)->description(), "cuda: "));
    size_t driver = facts.hardware.rfind(", driver ");
    if (driver != std::string::npos) {
      absl::StrAppend(&facts.toolkit, ", ", facts.hardware.substr(driver + 2));
    }
    devices_[target.target] = *std::move(device);
    return facts;
  }

  absl::StatusOr<std::string> Generate(const Module& module, const TargetSpec& target) override {
    absl::StatusOr<Module> lowered = cuda::LowerForCuda(module, target.arch);
    if (!lowered.ok()) return lowered.status();
    cuda::CudaCodegenOptions options;
    options.arch = target.arch;
    return cuda::EmitCudaSource(*lowered, options);
  }

  absl::StatusOr<CompileOutput> Compile(const Module& module, const std::string& source,
                                        const TargetSpec& target) override {
    std::string name = module.kernels.empty() ? "kernel" : module.kernels.front()->name;
    absl::StatusOr<cuda::NvrtcOutput> output =
        cuda::CompileWithNvrtc(source, name + ".cu", {.arch = target.arch});
    if (!output.ok()) return output.status();
    std::string summary = absl::StrCat("cubin ", output->cubin.size(), " bytes");
    for (const auto& [kernel, registers] : output->registers) {
      absl::StrAppend(&summary, ", ", kernel, ": ", registers, " registers");
    }
    return CompileOutput{output->log.empty() ? summary : absl::StrCat(output->log, "\n", summary),
                         ""};
  }

  absl::StatusOr<RunFigures> Run(const ops::OpCase& op, const TargetSpec& target,
                                 uint64_t seed) override {
    return RunOnDevice(*devices_.at(target.target), op, seed);
  }

 private:
  std::map<std::string, std::unique_ptr<runtime::Device>> devices_;
};

}  // namespace

std::unique_ptr<BackendProber> MakeCudaProber() { return std::make_unique<CudaProber>(); }

}  // namespace tile_ir::matrix
