// The Metal family and its Target: lowering and MSL.
#include "targets/metal/metal_target.h"

#include "absl/strings/str_cat.h"
#include "targets/c_source/embedded_file.h"
#include "targets/metal/gemm_simdgroup.h"
#include "targets/metal/metal_codegen.h"
#include "targets/metal/metal_target_info.h"

namespace tile_ir::metal {
namespace {

class MetalTarget final : public targets::Target {
 public:
  MetalTarget() : Target({"metal", "", {}}), info_(std::make_shared<MetalTargetInfo>()) {}

  std::shared_ptr<const passes::TargetInfo> info() const override { return info_; }
  std::string DefaultPipeline() const override { return DefaultMetalPipeline(); }
  std::string source_extension() const override { return "metal"; }

  absl::StatusOr<std::string> Emit(const Module& lowered,
                                   const targets::EmitOptions& options) const override {
    MetalCodegenOptions codegen;
    codegen.kernel = options.kernel;
    codegen.embed_library = options.self_contained;
    return EmitMetalSource(lowered, codegen);
  }

  absl::StatusOr<std::string> FindCompiler() const override {
    return absl::UnavailableError(
        "MSL is compiled by Apple's toolchain (xcrun metal) or by MTLDevice at run time, on "
        "macOS only; tile has no Metal compile step or device");
  }

  absl::StatusOr<targets::Binary> Compile(const Module& lowered, const std::string& source,
                                          std::string_view kernel) const override {
    return FindCompiler().status();
  }

  std::vector<std::pair<std::string, std::string>> CacheFields() const override {
    std::vector<std::pair<std::string, std::string>> fields = Target::CacheFields();
    std::string_view library = MetalLibrarySource();
    const c_source::EmbeddedFile file{"tl/metal.h", library};
    fields.emplace_back("device_library",
                        absl::StrCat(absl::Hex(c_source::Fingerprint({&file, 1}),
                                               absl::kZeroPad16)));
    return fields;
  }

 private:
  std::shared_ptr<const MetalTargetInfo> info_;
};

class MetalFamily final : public targets::TargetFamily {
 public:
  std::string name() const override { return "metal"; }
  std::string description() const override {
    return "the Metal Shading Language 3.1 for Apple GPUs (generated; no compiler here)";
  }
  std::vector<std::string> archs() const override { return {}; }
  void RegisterIntrinsics() const override {
    RegisterGemmSimdgroupIntrinsic().IgnoreError();  // fails only if another component took it
  }
  absl::StatusOr<std::unique_ptr<targets::Target>> Create(
      const targets::TargetName& name) const override {
    return std::unique_ptr<targets::Target>(std::make_unique<MetalTarget>());
  }
};

}  // namespace

std::unique_ptr<targets::TargetFamily> MakeMetalFamily() {
  return std::make_unique<MetalFamily>();
}

std::unique_ptr<targets::Target> MakeMetalTarget() {
  MetalFamily().RegisterIntrinsics();
  return std::make_unique<MetalTarget>();
}

}  // namespace tile_ir::metal
