// Generate, compile and run through a Target and the runtime's devices.
#include "tools/tile_matrix/target_prober.h"

#include <map>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "runtime/device_registry.h"
#include "tools/tile_matrix/device_run.h"

namespace tile_ir::matrix {
namespace {

// What a target's code depends on besides the kernel, as one line: the
// staleness half of a record that the target owns.
std::string LoweringLine(const targets::Target& target) {
  std::string line;
  for (const auto& [field, value] : target.CacheFields()) {
    absl::StrAppend(&line, line.empty() ? "" : "; ", field, " ", value);
  }
  return line;
}

class TargetProber final : public BackendProber {
 public:
  TargetProber(const targets::TargetRegistry& targets, std::string family)
      : targets_(targets), family_(std::move(family)) {}

  std::string backend() const override { return family_; }

  std::vector<TargetSpec> Targets() const override {
    std::vector<TargetSpec> specs;
    const targets::TargetFamily* family = targets_.FindFamily(family_);
    if (family == nullptr) return specs;
    std::vector<std::string> archs = family->archs();
    if (archs.empty()) archs.push_back("");
    for (const std::string& arch : archs) {
      absl::StatusOr<std::shared_ptr<const targets::Target>> target =
          targets_.Resolve(targets::TargetName{family_, arch, {}});
      if (!target.ok()) continue;  // a family that refuses its own architecture: its tests say so
      specs.push_back({(*target)->ToString(), (*target)->info()->arch(), LoweringLine(**target),
                       (*target)->CodeFollowsHost()});
    }
    return specs;
  }

  std::shared_ptr<const passes::TargetInfo> Info(const TargetSpec& spec) const override {
    absl::StatusOr<std::shared_ptr<const targets::Target>> target = Find(spec);
    return target.ok() ? (*target)->info() : nullptr;
  }

  MachineFacts Discover(const TargetSpec& spec) override {
    MachineFacts facts;
    absl::StatusOr<std::shared_ptr<const targets::Target>> target = Find(spec);
    if (!target.ok()) {
      facts.no_compiler = std::string(target.status().message());
      return facts;
    }
    facts.arch = (*target)->info()->arch();
    absl::StatusOr<std::string> compiler = (*target)->FindCompiler();
    if (!compiler.ok()) {
      facts.no_compiler = std::string(compiler.status().message());
      facts.no_hardware = "nothing compiles this target's code here";
      return facts;
    }
    facts.compiler = *compiler;
    facts.toolkit = *compiler;
    absl::StatusOr<std::unique_ptr<runtime::Device>> device = runtime::OpenDevice(spec.target);
    if (!device.ok()) {
      facts.no_hardware = std::string(device.status().message());
      return facts;
    }
    // "cuda: NVIDIA H200 (sm_90a, 132 SMs, 139 GiB), driver 13.0"
    facts.hardware =
        std::string(absl::StripPrefix((*device)->description(), absl::StrCat(family_, ": ")));
    if (size_t driver = facts.hardware.rfind(", driver "); driver != std::string::npos) {
      absl::StrAppend(&facts.toolkit, ", ", facts.hardware.substr(driver + 2));
    }
    devices_[spec.target] = *std::move(device);
    return facts;
  }

  absl::StatusOr<std::string> Generate(const Module& module, const TargetSpec& spec) override {
    absl::StatusOr<std::shared_ptr<const targets::Target>> target = Find(spec);
    if (!target.ok()) return target.status();
    absl::StatusOr<Module> lowered = (*target)->Lower(module);
    if (!lowered.ok()) return lowered.status();
    lowered_[spec.target] = *lowered;
    return (*target)->Emit(*lowered, {});
  }

  absl::StatusOr<CompileOutput> Compile(const Module& module, const std::string& source,
                                        const TargetSpec& spec) override {
    absl::StatusOr<std::shared_ptr<const targets::Target>> target = Find(spec);
    if (!target.ok()) return target.status();
    auto lowered = lowered_.find(spec.target);
    if (lowered == lowered_.end()) {
      return absl::FailedPreconditionError("compile before generate");
    }
    const std::string kernel =
        module.kernels.empty() ? std::string("kernel") : module.kernels.front()->name;
    absl::StatusOr<targets::Binary> binary = (*target)->Compile(lowered->second, source, kernel);
    if (!binary.ok()) return binary.status();
    return CompileOutput{binary->log, binary->compiler};
  }

  absl::StatusOr<RunFigures> Run(const ops::OpCase& op, const TargetSpec& spec,
                                 uint64_t seed) override {
    auto device = devices_.find(spec.target);
    if (device == devices_.end()) return absl::FailedPreconditionError("no device to run on");
    return RunOnDevice(*device->second, op, seed);
  }

 private:
  absl::StatusOr<std::shared_ptr<const targets::Target>> Find(const TargetSpec& spec) const {
    return targets_.Resolve(spec.target);
  }

  const targets::TargetRegistry& targets_;
  std::string family_;
  std::map<std::string, std::unique_ptr<runtime::Device>> devices_;
  std::map<std::string, Module> lowered_;
};

}  // namespace

std::unique_ptr<BackendProber> MakeTargetProber(const targets::TargetRegistry& targets,
                                                std::string_view family) {
  return std::make_unique<TargetProber>(targets, std::string(family));
}

}  // namespace tile_ir::matrix
