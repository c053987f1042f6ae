// The CPU prober: one target ("cpu", the host's architecture), always compiled
// and run here.
#include "tools/tile_matrix/cpu_prober.h"

#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "llvm/Config/llvm-config.h"
#include "runtime/cpu/cpu_device.h"
#include "targets/cpu/cpu_compiler.h"
#include "tools/tile_matrix/device_run.h"

namespace tile_ir::matrix {
namespace {

// "Intel(R) Xeon(R) Platinum 8488C" from /proc/cpuinfo, or empty.
std::string CpuModelName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (!absl::StartsWith(line, "model name")) continue;
    size_t colon = line.find(':');
    if (colon != std::string::npos) {
      return std::string(absl::StripAsciiWhitespace(absl::string_view(line).substr(colon + 1)));
    }
  }
  return "";
}

class CpuProber final : public BackendProber {
 public:
  std::string backend() const override { return "cpu"; }

  std::vector<TargetSpec> Targets() const override {
    return {{"cpu", "host", cpu::DefaultCpuPipeline()}};
  }

  MachineFacts Discover(const TargetSpec& target) override {
    MachineFacts facts;
    facts.arch = cpu::HostCpuName();
    facts.compiler = absl::StrCat("LLVM ", LLVM_VERSION_STRING, " (ORC JIT)");
    facts.toolkit = absl::StrCat("LLVM ", LLVM_VERSION_STRING);
    absl::StatusOr<std::unique_ptr<runtime::Device>> device = runtime::OpenCpuDevice();
    if (!device.ok()) {
      facts.no_hardware = std::string(device.status().message());
      return facts;
    }
    device_ = *std::move(device);
    std::string model = CpuModelName();
    std::string description(absl::StripPrefix(device_->description(), "cpu: "));
    facts.hardware = model.empty() ? description : absl::StrCat(model, " (", description, ")");
    return facts;
  }

  absl::StatusOr<std::string> Generate(const Module& module, const TargetSpec& target) override {
    absl::StatusOr<Module> lowered = cpu::LowerForCpu(module);
    if (!lowered.ok()) return lowered.status();
    return cpu::EmitLlvmIr(*lowered, /*optimize=*/false);
  }

  absl::StatusOr<CompileOutput> Compile(const Module& module, const std::string& source,
                                        const TargetSpec& target) override {
    absl::StatusOr<std::unique_ptr<cpu::CpuExecutable>> executable = cpu::CompileForCpu(module);
    if (!executable.ok()) return executable.status();
    return CompileOutput{absl::StrCat("optimized (O3) and JIT-compiled for ", cpu::HostCpuName()),
                         ""};
  }

  absl::StatusOr<RunFigures> Run(const ops::OpCase& op, const TargetSpec& target,
                                 uint64_t seed) override {
    return RunOnDevice(*device_, op, seed);
  }

 private:
  std::unique_ptr<runtime::Device> device_;
};

}  // namespace

std::unique_ptr<BackendProber> MakeCpuProber() { return std::make_unique<CpuProber>(); }

}  // namespace tile_ir::matrix
