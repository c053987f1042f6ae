// The Metal prober: one target, "metal" (the language version is its arch).
#include "tools/tile_matrix/metal_prober.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "targets/metal/metal_codegen.h"
#include "targets/metal/metal_lowering.h"

namespace tile_ir::matrix {
namespace {

class MetalProber final : public BackendProber {
 public:
  std::string backend() const override { return "metal"; }

  std::vector<TargetSpec> Targets() const override {
    std::string_view library = metal::MetalLibrarySource();
    return {{"metal", metal::kMetalArch,
             absl::StrCat(metal::DefaultMetalPipeline(), "; device library ",
                          HashText(absl::string_view(library.data(), library.size())))}};
  }

  MachineFacts Discover(const TargetSpec& target) override {
    MachineFacts facts;
    facts.no_compiler =
        "MSL is compiled by Apple's toolchain (xcrun metal) or by MTLDevice at run time, on "
        "macOS only; tile has no Metal compile step or device";
    return facts;
  }

  absl::StatusOr<std::string> Generate(const Module& module, const TargetSpec& target) override {
    absl::StatusOr<Module> lowered = metal::LowerForMetal(module);
    if (!lowered.ok()) return lowered.status();
    return metal::EmitMetalSource(*lowered);
  }

  absl::StatusOr<CompileOutput> Compile(const Module& module, const std::string& source,
                                        const TargetSpec& target) override {
    return absl::FailedPreconditionError("no Metal compiler");
  }

  absl::StatusOr<RunFigures> Run(const ops::OpCase& op, const TargetSpec& target,
                                 uint64_t seed) override {
    return absl::FailedPreconditionError("no Metal device");
  }
};

}  // namespace

std::unique_ptr<BackendProber> MakeMetalProber() { return std::make_unique<MetalProber>(); }

}  // namespace tile_ir::matrix
