// The HIP prober: targets "hip:<arch>" for each known architecture.
#include "tools/tile_matrix/hip_prober.h"

#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "targets/hip/hip_codegen.h"
#include "targets/hip/hip_device_headers.h"
#include "targets/hip/hip_lowering.h"
#include "targets/hip/hipcc_compiler.h"

namespace tile_ir::matrix {
namespace {

class HipProber final : public BackendProber {
 public:
  std::string backend() const override { return "hip"; }

  std::vector<TargetSpec> Targets() const override {
    std::vector<TargetSpec> targets;
    char library[17];
    std::snprintf(library, sizeof(library), "%016llx",
                  static_cast<unsigned long long>(hip::HipDeviceLibraryFingerprint()));
    for (const std::string& arch : hip::KnownHipArchs()) {
      std::string name = absl::StrCat("hip:", arch);
      targets.push_back(
          {name, arch, absl::StrCat(hip::DefaultHipPipeline(name), "; device library ", library)});
    }
    return targets;
  }

  MachineFacts Discover(const TargetSpec& target) override {
    MachineFacts facts;
    absl::StatusOr<std::string> hipcc = hip::FindHipcc();
    if (!hipcc.ok()) {
      facts.no_compiler = std::string(hipcc.status().message());
      return facts;
    }
    facts.compiler = absl::StrCat("hipcc (", *hipcc, ")");
    facts.toolkit = facts.compiler;  // the exact version comes with each compile
    facts.no_hardware =
        "this prober has no run level (runtime/hip is not wired in), and no AMD GPU is "
        "reachable from these machines";
    return facts;
  }

  absl::StatusOr<std::string> Generate(const Module& module, const TargetSpec& target) override {
    absl::StatusOr<Module> lowered = hip::LowerForHip(module, target.arch);
    if (!lowered.ok()) return lowered.status();
    hip::HipCodegenOptions options;
    options.arch = target.arch;
    return hip::EmitHipSource(*lowered, options);
  }

  absl::StatusOr<CompileOutput> Compile(const Module& module, const std::string& source,
                                        const TargetSpec& target) override {
    absl::StatusOr<hip::HipCodeObject> object = hip::CompileHipCodeObject(source, target.arch);
    if (!object.ok()) return object.status();
    return CompileOutput{
        absl::StrCat("code object ", object->bytes.size(), " bytes for ", target.arch),
        object->compiler_version};
  }

  absl::StatusOr<RunFigures> Run(const ops::OpCase& op, const TargetSpec& target,
                                 uint64_t seed) override {
    return absl::FailedPreconditionError("no HIP device to run on");
  }
};

}  // namespace

std::unique_ptr<BackendProber> MakeHipProber() { return std::make_unique<HipProber>(); }

}  // namespace tile_ir::matrix
